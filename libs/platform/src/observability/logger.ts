import type { LoggerService } from '@nestjs/common';
import { type DestinationStream, type LoggerOptions, pino, type Logger as PinoLogger } from 'pino';
import { redactValue } from './redaction.js';

export type Logger = PinoLogger;

/**
 * The options every logger of the system is made with: ISO times, and secrets redacted from every line
 * (`redactValue`, which also turns errors into plain objects, so pino's own error serializer steps aside).
 */
export const LOGGER_OPTIONS = {
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { log: (line: Record<string, unknown>) => redactValue(line) as Record<string, unknown> },
  serializers: { err: (value: unknown) => value },
} satisfies LoggerOptions;

/** JSON logs on stdout; `service` and, per request, `requestId` are bound as fields. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: DestinationStream): Logger {
  const options = { ...LOGGER_OPTIONS, level, base: { ...bindings } };
  return destination ? pino(options, destination) : pino(options);
}

/** Routes Nest's own log lines into the JSON logger. */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
