/**
 * One GET of a Prometheus exposition, bounded in time and size. Node's own `fetch` (`got` is only
 * a development dependency of svc). Credentials in the URL's userinfo are sent as Basic auth
 * (fetch refuses a URL that carries them) and masked in every message.
 */
import { basicAuthOf, fetchFailure } from '../fetch-url.js';
import { redactText } from '../redact.js';

/** Longest wait for the whole answer. */
export const READ_TIMEOUT_MS = 10_000;
/** Largest exposition read: a big exporter writes a few MiB. */
export const MAX_EXPOSITION_BYTES = 16 * 1024 * 1024;

export interface ReadExposition {
  readonly text: string;
  /** When it was read: counters' ages are measured against it. */
  readonly readAt: Date;
}

/** The text at `url` (an http or https URL), or an Error whose message names the URL with its credentials masked. */
export async function readExposition(url: string): Promise<ReadExposition> {
  const shown = redactText(url);
  const fail = (why: string) => new Error(`--from: cannot read ${shown}: ${redactText(why)}`);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw fail('not a valid URL');
  }
  const headers: Record<string, string> = { accept: 'text/plain' };
  const bare = basicAuthOf(target, headers);
  let response: Response;
  try {
    response = await fetch(bare, { headers, signal: AbortSignal.timeout(READ_TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    throw fail(fetchFailure(error, target, READ_TIMEOUT_MS));
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw fail(`HTTP ${response.status} ${response.statusText}`.trim());
  }
  const readAt = new Date();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_EXPOSITION_BYTES) {
        await response.body?.cancel();
        throw fail(`the answer is larger than ${MAX_EXPOSITION_BYTES / 1024 / 1024} MiB`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('--from:')) throw error;
    // The answer began: its end is what failed, not the connection or the server's answering.
    const timedOut = (error as Error).name === 'TimeoutError';
    throw fail(
      timedOut
        ? `the answer was not complete within ${READ_TIMEOUT_MS / 1000} s (${size} bytes read)`
        : `the answer was cut off after ${size} bytes: ${fetchFailure(error, target, READ_TIMEOUT_MS)}`,
    );
  }
  return { text: Buffer.concat(chunks).toString('utf8'), readAt };
}
