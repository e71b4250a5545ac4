import { map, type OperatorFunction } from 'rxjs';
import type { LogBatch, LogTemplate, TickBatch } from './model/batch.js';
import { check, FUNCTION } from './internal/arguments.js';

/**
 * The log record of tick `index`, scheduled `offset` ms after the entry start. Pure. A record
 * whose message was filled from a template names it (the same object for every record of that
 * template), so encoders prepare its literal text once.
 */
export type LogRecordGenerator = (
  index: number,
  offset: number,
) => {
  readonly severity: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly template?: LogTemplate;
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
  check('generateLogs', 'generator', generator, FUNCTION);
  return map((batch) => {
    // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
    const { size, index, offset } = batch;
    const severity = new Array<string>(size);
    const message = new Array<string>(size);
    const fields = new Array<Readonly<Record<string, string>>>(size);
    const template = new Array<LogTemplate | undefined>(size);
    for (let i = 0; i < size; i++) {
      const record = generator(index[i]!, offset[i]!);
      severity[i] = record.severity;
      message[i] = record.message;
      fields[i] = record.fields;
      template[i] = record.template;
    }
    return { ...batch, severity, message, fields, template };
  });
}
