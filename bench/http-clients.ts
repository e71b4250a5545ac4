/**
 * The HTTP client of the HTTP sinks, measured: Node's own `http` (what lib/sinks/http.ts uses)
 * against `got` (named in the design), posting the same 6 KB body one request at a time over a
 * kept-alive connection to a receiver in this process, as a batching sink does. Both in one run,
 * alternating, so the machine's state affects both alike. Prints figures; asserts nothing.
 */
import { Agent, createServer, request } from 'node:http';
import got from 'got';

const BODY = Buffer.alloc(6 * 1024, 7);
const HEADERS = { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy' };

export async function httpClientBench(seconds: number): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/write`;
  const nodeAgent = new Agent({ keepAlive: true });
  const gotAgent = new Agent({ keepAlive: true });
  const clients: Record<string, () => Promise<unknown>> = {
    'node:http': () =>
      new Promise<void>((resolve, reject) => {
        const req = request(url, {
          method: 'POST',
          agent: nodeAgent,
          headers: { ...HEADERS, 'Content-Length': String(BODY.length) },
        });
        req.on('error', reject);
        req.on('response', (res) => res.resume().on('end', resolve));
        req.end(BODY);
      }),
    got: () =>
      got.post(url, {
        body: BODY,
        headers: HEADERS,
        agent: { http: gotAgent },
        retry: { limit: 0 },
        throwHttpErrors: false,
        decompress: false,
      }),
  };
  const totals: Record<string, { requests: number; ms: number }> = {};
  for (let round = 0; round < 4; round++) {
    for (const [name, post] of Object.entries(clients)) {
      const started = performance.now();
      let requests = 0;
      while (performance.now() - started < (seconds * 1000) / 4) {
        await post();
        requests++;
      }
      // The first round warms both clients up and is not counted.
      if (round === 0) continue;
      const total = (totals[name] ??= { requests: 0, ms: 0 });
      total.requests += requests;
      total.ms += performance.now() - started;
    }
  }
  console.log(`HTTP client: 6 KB POSTs one at a time, kept alive, ${seconds} s each`);
  for (const [name, { requests, ms }] of Object.entries(totals)) {
    console.log(
      `  ${name.padEnd(10)} ${Math.round(requests / (ms / 1000)).toLocaleString('en-US')} requests/s, ${((ms * 1000) / requests).toFixed(0)} µs a request`,
    );
  }
  nodeAgent.destroy();
  gotAgent.destroy();
  server.close();
}
