import type { LoggerService } from '@nestjs/common';
import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** JSON logs on stdout; `service` and, per request, `requestId` are bound as fields. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { ...bindings }, timestamp: pino.stdTimeFunctions.isoTime });
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
