/**
 * A worker thread of `svc run --workers N` (workers.ts): runs the file as its shard of the
 * series, from the instant the main thread starts every worker at, reports its counters, stops
 * (flushing) when told to, and reports its outcomes.
 */
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { Subject } from 'rxjs';
import { startEntries, type FileRun } from './file-run.js';
import type { EntryOutcome, EntryRun } from './run-entry.js';
import {
  REPORT_MS,
  STOP,
  type StdoutAnswer,
  type ToWorker,
  type WorkerCounters,
  type WorkerData,
  type WorkerMessage,
  type WorkerOutcome,
} from './workers.js';

const port = parentPort!;
const { entries, shard } = workerData as WorkerData;
const startAt = new Subject<number>();
const post = (message: WorkerMessage): void => port.postMessage(message);
/** The callback of the chunks the main thread is writing to its stdout (one message at a time). */
let writing: ((error?: Error) => void) | undefined;
// The stdout sinks' stream: a write is done once the main thread wrote it, so what the reader of stdout never
// took is counted dropped here, as on one thread (workers.ts).
const stdout = new Writable({
  decodeStrings: false,
  writev(chunks, done) {
    writing = done;
    post({ type: 'stdout', chunks: chunks.map(({ chunk }) => chunk as string | Uint8Array) });
  },
});
// The main thread truncated the files (and refused encodings with a trailer on them).
const fileRun = startEntries(entries, { shard, sinkDeps: { appendFiles: true }, stdout, startAt });
const ticker = setInterval(() => post({ type: 'stats', entries: countersOf(fileRun) }), REPORT_MS);
const onMessage = (message: ToWorker): void => {
  // A stop before the start stops the entries waiting for it.
  if (message === STOP) void fileRun.stop();
  else if ('start' in message) startAt.next(message.start);
  else written(message);
};
port.on('message', onMessage);
post({ type: 'ready' });

// Each entry's outcome once it ended, told at once: the main thread ends it there, not at the run's end.
const ended: (WorkerOutcome | undefined)[] = fileRun.runs.map(() => undefined);
fileRun.runs.forEach(
  (run, i) =>
    void run.done.then((outcome) => {
      ended[i] = workerOutcome(run, outcome);
      post({ type: 'stats', entries: countersOf(fileRun) });
    }),
);

const outcomes = await fileRun.done;
clearInterval(ticker);
// Every entry's outcome is in its counters' `ended` from here on, whatever order the promises above settled in.
outcomes.forEach((outcome, i) => {
  ended[i] ??= workerOutcome(fileRun.runs[i]!, outcome);
});
post({ type: 'done', entries: countersOf(fileRun) });
// Nothing keeps the thread alive any more: it exits.
port.off('message', onMessage);

function written(answer: StdoutAnswer): void {
  const done = writing!;
  writing = undefined;
  done('failed' in answer ? Object.assign(new Error(answer.failed), { code: answer.code }) : undefined);
}

function workerOutcome({ stats }: EntryRun, { error, inSink }: EntryOutcome): WorkerOutcome {
  if (error) return { error: error.message, inSink };
  // This worker's sink let nothing through: its series are lost, though other workers' may have been delivered.
  return stats.neverDelivered()
    ? {
        error: `worker ${shard.index + 1} of ${shard.count} delivered nothing of its series (${stats.lastSinkError})`,
        inSink: true,
      }
    : {};
}

function countersOf({ runs, startedAt, triggeredAt }: FileRun): WorkerCounters[] {
  return runs.map(({ entry, stats }: EntryRun, i) => ({
    events: stats.totalEvents,
    bytes: stats.bytes,
    failures: stats.totalSinkFailures,
    dropped: stats.droppedEvents,
    delivered: stats.deliveredEvents,
    lastSinkError: stats.lastSinkError,
    rejected: stats.receiverRejected,
    refusals: stats.refusedRequests,
    streaks: stats.refusalStreaks,
    lastRefusal: stats.lastRefusal,
    lastWriteAt: stats.lastSuccessfulWriteAt,
    retries: stats.sinkRetries,
    started: startedAt(entry.id) !== undefined,
    triggeredAt: triggeredAt(entry.id),
    warnings: stats.sinkWarnings,
    missed: stats.missedEvents,
    ...(stats.receiverWritten && { receiverWritten: stats.receiverWritten }),
    ...(ended[i] && { ended: ended[i] }),
  }));
}
