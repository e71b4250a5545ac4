import { map, type OperatorFunction } from 'rxjs';
import type { LogBatch, TickBatch } from './model/batch.js';

/** The log record of tick `index`, scheduled `offset` ms after the entry start. Pure. */
export type LogRecordGenerator = (index: number, offset: number) => {
  readonly severity: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, string>>;
};

/**
 * Generator map for log entries: gives every tick a log record (severity, message, fields).
 *
 * ```
 * ticks:    0---1---2--|
 *           generateLogs(template generator)
 * records:  a---b---c--|   a = {severity: 'info', message: 'login ann', fields: {user: 'ann'}}
 * ```
 */
export function generateLogs<B extends TickBatch>(generator: LogRecordGenerator): OperatorFunction<B, B & LogBatch> {
  return map((batch) => {
    const severity = new Array<string>(batch.size);
    const message = new Array<string>(batch.size);
    const fields = new Array<Readonly<Record<string, string>>>(batch.size);
    for (let i = 0; i < batch.size; i++) {
      const record = generator(batch.index[i]!, batch.offset[i]!);
      severity[i] = record.severity;
      message[i] = record.message;
      fields[i] = record.fields;
    }
    return { ...batch, severity, message, fields };
  });
}
