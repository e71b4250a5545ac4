import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  readonly body: string;
  /** The body's bytes (binary protocols). */
  readonly raw: Buffer;
}

/** How to answer a request: a status, body and headers (`Retry-After`), or `stall` to never answer. */
export type Answer =
  | { readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  | 'stall';

export interface HttpReceiver {
  readonly url: string;
  /** Requests answered 2xx, in arrival order. */
  readonly accepted: ReceivedRequest[];
  /** Every request, whatever the answer. */
  readonly requests: ReceivedRequest[];
  /** Bodies of the accepted requests, concatenated. */
  text(): string;
  /** How the following requests are answered (default 204). */
  answer(next: (request: ReceivedRequest) => Answer): void;
  stop(): Promise<void>;
}

/** A plain HTTP endpoint on 127.0.0.1 that records what it is sent, for http_push specs. */
export async function startHttpReceiver(): Promise<HttpReceiver> {
  const accepted: ReceivedRequest[] = [];
  const requests: ReceivedRequest[] = [];
  let decide: (request: ReceivedRequest) => Answer = () => ({ status: 204 });
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts);
    const request = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: raw.toString('utf8'),
      raw,
    };
    requests.push(request);
    const answer = decide(request);
    if (answer === 'stall') return;
    if (answer.status >= 200 && answer.status < 300) accepted.push(request);
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    requests,
    text: () => accepted.map((r) => r.body).join(''),
    answer(next) {
      decide = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
