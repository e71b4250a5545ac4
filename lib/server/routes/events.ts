import { createRequire } from 'node:module';
import type { EncodedBatch } from '../../../operators/model/batch.js';
import { Router } from '../packages.js';
import type { ServerDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { DrainingError } from '../registry.js';
import { confineSink, serverDirectories } from '../file-root.js';
import { nowOf } from '../clock.js';

// Codecs, encoders and sinks are loaded by the first event (docs/performance.md).
const require = createRequire(import.meta.url);

/**
 * `POST /events`: encode one event, push it through its sink, flush, and answer once the
 * destination acknowledged. Sink failures answer 502; an encoder failure 500; 503 `draining` once the server
 * drains, as `POST /scenarios` does: a server going away takes no new work.
 */
export function eventRoutes(deps: ServerDeps): Router {
  const now = nowOf(deps);
  return new Router().post('/events', async (ctx) => {
    if (deps.registry.draining) throw new DrainingError();
    const { jsonBody } = require('../posted.js') as typeof import('../posted.js');
    const { appendedEvent, appendingInTurn, decodeEvent, encodeEvent } =
      require('../event.js') as typeof import('../event.js');
    const { sinkWarnings } = require('../warnings.js') as typeof import('../warnings.js');
    const { encoderSinkDeps } =
      require('../../encoders/kinds/index.js') as typeof import('../../encoders/kinds/index.js');
    const { createSink } = require('../../sinks/index.js') as typeof import('../../sinks/index.js');
    const started = performance.now();
    const decoded = decodeEvent(jsonBody(ctx));
    // The trailer (openmetrics `# EOF`) only where the next event cuts it: a file. On stdout, which nothing cuts,
    // each event's would stay in the middle of the stream. Not `appended`: appendedEvent applies it, refusing before
    // the sink writes.
    const { trailer, appended: _, ...encoder } = encoderSinkDeps(decoded.encoder.type);
    const encoding = decoded.sink.type === 'file' ? { ...encoder, trailer } : encoder;
    const own = await serverDirectories(deps);
    // Only a file sink is checked against the files the running scenarios read: an event to any other costs no look.
    const reads = decoded.sink.type === 'file' ? deps.registry.reads() : [];
    const event = { ...decoded, sink: await confineSink(decoded.sink, deps.fileRoot, '', reads, own, encoding) };
    const warnings = sinkWarnings('sink', event.sink);
    for (const warning of warnings) deps.logger.warn(warning);

    let chunk: EncodedBatch;
    try {
      chunk = encodeEvent(event, now());
    } catch (error) {
      deps.logger.error({ err: error }, 'encoder failed on a single event');
      throw new HttpError(500, 'encoder_failed', `encoder ${event.encoder.type} failed: ${(error as Error).message}`);
    }
    // A single event adds to a file sink's file; only a run empties its files (once, at its start). Told its
    // encoder's trailer, it cuts the `# EOF` an openmetrics file ends with and writes it again after the event.
    const send = async (encoded: EncodedBatch): Promise<void> => {
      const sink = deps.createSink
        ? deps.createSink(event.sink, event.encoder.type)
        : createSink(event.sink, { ...encoding, appendFiles: true, realPaths: true });
      try {
        await sink.write(encoded);
        await sink.flush();
        await sink.close();
      } catch (error) {
        await sink.close().catch(() => undefined);
        throw new HttpError(502, 'sink_failed', (error as Error).message);
      }
    };
    // It follows the file's last line (openmetrics: without the metadata its family has there), read in the file's
    // turn: read by another event at once, both would follow the same line.
    if (decoded.sink.type === 'file' && event.sink.type === 'file') {
      const { path } = event.sink;
      const given = decoded.sink.path;
      const type = event.encoder.type;
      await appendingInTurn(path, given, () => send(appendedEvent(chunk, type, path, given)), deps.scheduler);
    } else await send(chunk);
    ctx.body = {
      sent: true,
      signal_type: event.signal_type,
      latency_ms: Math.round(performance.now() - started),
      ...(warnings.length && { warnings }),
    };
  });
}
