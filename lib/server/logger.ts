import type { DestinationStream, Logger } from 'pino';
import { pino } from './packages.js';
import { redactConfig, redactText } from '../redact.js';

/**
 * The server's pino logger: every message, field and serialized error has its secrets masked
 * (URL credentials, secret-bearing headers, passwords), whoever logs it.
 */
export function createLogger(level: string, destination: DestinationStream): Logger {
  return pino(
    {
      level,
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((arg: unknown) => (typeof arg === 'string' ? redactText(arg) : redactConfig(arg))) as Parameters<
              typeof method
            >,
          );
        },
      },
      serializers: { err: (error: Error) => redactConfig(pino.stdSerializers.err(error)) },
    },
    destination,
  );
}

/**
 * Resolves once the logger's destination wrote out the lines just logged, or after `withinMs` (a stderr nobody
 * reads). pino.destination writes asynchronously: a process.exit before that loses the lines still queued, or
 * writes them out of order. Call it right after logging: it waits for the destination's next `drain`.
 */
export function logged(logger: Logger, withinMs: number): Promise<void> {
  const stream = (logger as unknown as Record<symbol, NodeJS.EventEmitter | undefined>)[pino.symbols.streamSym];
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stream?.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, withinMs);
    stream?.once('drain', done);
  });
}
