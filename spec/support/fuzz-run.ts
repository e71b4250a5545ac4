/**
 * Sends hostile bodies ({@link fuzzRequest}) to a running svc-server, several at a time, while a
 * prober asks `/health` every 50 ms, and tells what a person would call a defect: the process
 * exited (crash), a request went unanswered for longer than any answer may take (the sinks' 10 s
 * flush timeout, plus a margin) or `/health` went unanswered for `healthLimitMs` (freeze), or an
 * answer was a 500 (an unexpected error). Every scenario a body started is deleted at once, so
 * valid bodies do not pile up load.
 */
import fc from 'fast-check';
import { fuzzRequest, type FuzzRequest } from './fuzz.js';
import type { ServerProcess } from './server-process.js';

export interface FuzzOutcome {
  readonly sent: number;
  readonly statuses: Record<number, number>;
  readonly crashed: boolean;
  /** Requests unanswered in time; `/health` when the prober waited too long. */
  readonly frozen: (FuzzRequest | '/health')[];
  readonly unexpected: { request: FuzzRequest; answer: string }[];
  /** Slowest answer to a fuzzed request, ms. */
  readonly slowestMs: number;
  /** `/health` latencies meanwhile, ms. */
  readonly health: number[];
}

export interface FuzzOptions {
  readonly seed?: number;
  /** Requests in flight at once. */
  readonly concurrency?: number;
  readonly requestLimitMs?: number;
  readonly healthLimitMs?: number;
}

export async function fuzzServer(server: ServerProcess, runs: number, options: FuzzOptions = {}): Promise<FuzzOutcome> {
  const { seed = 42, concurrency = 8, requestLimitMs = 15_000, healthLimitMs = 2_000 } = options;
  const statuses: Record<number, number> = {};
  const frozen: FuzzOutcome['frozen'] = [];
  const unexpected: FuzzOutcome['unexpected'] = [];
  const health: number[] = [];
  let slowestMs = 0;
  let sent = 0;
  let exited = false;
  void server.exited.then(() => (exited = true));
  const stopped = () => exited || frozen.length > 0;

  const requests = fc.sample(fuzzRequest, { numRuns: runs, seed });
  const send = async (request: FuzzRequest): Promise<void> => {
    const started = performance.now();
    try {
      const answer = await fetch(`${server.base}${request.path}`, {
        method: 'POST',
        headers: { 'content-type': request.contentType },
        body: request.body,
        signal: AbortSignal.timeout(requestLimitMs),
      });
      const text = await answer.text();
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.status === 500) unexpected.push({ request, answer: text });
      if (answer.status === 201) await deleteStarted(server, text, requestLimitMs);
    } catch (error) {
      if (exited) return;
      if ((error as Error).name !== 'TimeoutError') throw error;
      frozen.push(request);
    } finally {
      sent++;
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
  };
  const worker = async (): Promise<void> => {
    while (!stopped() && requests.length) await send(requests.shift()!);
  };

  let probing = true;
  const probe = (async () => {
    while (probing && !stopped()) {
      const started = performance.now();
      try {
        await fetch(`${server.base}/health`, { signal: AbortSignal.timeout(healthLimitMs) }).then((res) =>
          res.arrayBuffer(),
        );
        health.push(performance.now() - started);
      } catch {
        if (!exited) frozen.push('/health');
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await Promise.all(Array.from({ length: concurrency }, worker));
  probing = false;
  await probe;
  // A crash may come a moment after the answer that caused it.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { sent, statuses, crashed: exited, frozen, unexpected, slowestMs, health };
}

/** Deletes the scenarios of a 201 answer. */
async function deleteStarted(server: ServerProcess, text: string, timeoutMs: number): Promise<void> {
  const body = JSON.parse(text) as { id?: string; scenarios?: { id: string }[] };
  const ids = body.id ? [body.id] : (body.scenarios ?? []).map((scenario) => scenario.id);
  for (const id of ids)
    await fetch(`${server.base}/scenarios/${id}`, { method: 'DELETE', signal: AbortSignal.timeout(timeoutMs) }).then(
      (res) => res.arrayBuffer(),
    );
}
