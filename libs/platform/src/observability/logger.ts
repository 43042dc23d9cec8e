import { createRequire } from 'node:module';
import type { LoggerService } from '@nestjs/common';
import { type DestinationStream, type LoggerOptions, pino, type Logger as PinoLogger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
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

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `LOG_FORMAT` when set (loadConfig has checked it), else readable lines for a person at a terminal and JSON for everything else. */
export function logFormat(env: NodeJS.ProcessEnv = process.env, terminal = process.stdout.isTTY === true): LogFormat {
  return env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty' ? env.LOG_FORMAT : terminal ? 'pretty' : 'json';
}

/** One coloured line per event: time, level, message, then the fields that say which request or service. */
const PRETTY: PrettyOptions = { colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true };

/**
 * Logs on stdout: JSON lines, or (`logFormat`) readable ones; `service` and, per request, `requestId` are
 * bound as fields either way. A `destination` given (tests) always gets JSON.
 */
export function createLogger(level: string, bindings: Record<string, unknown> = {}, destination?: DestinationStream): Logger {
  const options = { ...LOGGER_OPTIONS, level, base: { ...bindings } };
  if (destination) return pino(options, destination);
  return logFormat() === 'pretty' ? pino(options, prettyStream()) : pino(options);
}

// Loaded when a logger is made pretty, not with the module: a deployed process logs JSON and never needs it.
const prettyStream = () => (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')).build(PRETTY);

/**
 * Routes Nest's own log lines into the logger. Its `log` level is start-up chatter (every module
 * initialised, every route mapped: 80 lines before the banner), so it goes to debug.
 */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
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
