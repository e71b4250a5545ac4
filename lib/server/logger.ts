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
