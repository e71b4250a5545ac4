import { Writable } from 'node:stream';
import { settle } from './clock.js';

/** A Writable that takes `delayMs` per chunk and keeps what it received. */
export function slowWritable(delayMs: number, highWaterMark: number): { stream: Writable; received: string[] } {
  const received: string[] = [];
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      setTimeout(() => {
        received.push(chunk);
        done();
      }, delayMs);
    },
  });
  return { stream, received };
}

/** A Writable whose every write fails, after `delayMs`, with `message`. */
export function failingWritable(message: string, delayMs = 0): Writable {
  return new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, done) {
      setTimeout(() => done(Object.assign(new Error(message), { code: message.split(':')[0] })), delayMs);
    },
  });
}

/** Whether `promise` has settled once pending I/O callbacks had a chance to run. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  return settled;
}
