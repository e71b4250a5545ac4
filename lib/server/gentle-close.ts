import type { Server, ServerResponse } from 'node:http';

/**
 * The close of `server` at a stop, installed before it listens (it keeps the requests not answered yet): it stops
 * listening, lets the requests whose body had arrived be answered (a `POST /events` still sending its event) for
 * at most `withinMs`, then ends every connection left, a request whose body never comes included: close() alone
 * would wait for it for ever, as it also ends node's checks of the request timeouts.
 */
export function gentleClose(server: Server): (withinMs: number) => Promise<void> {
  const unanswered = new Set<ServerResponse>();
  server.on('request', (_, response: ServerResponse) => {
    unanswered.add(response);
    response.once('close', () => unanswered.delete(response));
  });
  return async (withinMs) => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    const answering = [...unanswered]
      .filter((response) => response.req.complete)
      .map((response) => new Promise((resolve) => response.once('close', resolve)));
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(answering), new Promise((resolve) => (grace = setTimeout(resolve, withinMs)))]);
    clearTimeout(grace);
    server.closeAllConnections();
    await closed;
  };
}
