import Router from '@koa/router';
import { asyncScheduler } from 'rxjs';
import type { ServerDeps } from '../deps.js';
import { decodeEvent, encodeEvent } from '../event.js';
import { HttpError } from '../http-error.js';
import { jsonBody } from '../body.js';
import { confineFileSink } from '../file-root.js';
import { sinkWarnings } from '../warnings.js';
import { createSink } from '../../sinks/index.js';

/**
 * `POST /events`: encode one event, push it through its sink, flush, and answer once the
 * destination acknowledged. Sink failures answer 502; an encoder failure 500.
 */
export function eventRoutes(deps: ServerDeps): Router {
  // A single event adds to a file sink's file; only a run empties its files (once, at its start).
  const build = deps.createSink ?? ((config, encoder) => createSink(config, { encoder, appendFiles: true }));
  return new Router().post('/events', async (ctx) => {
    const started = performance.now();
    const decoded = decodeEvent(jsonBody(ctx));
    const event = { ...decoded, sink: await confineFileSink(decoded.sink, deps.fileRoot, '') };
    const warnings = sinkWarnings('sink', event.sink);
    for (const warning of warnings) deps.logger.warn(warning);

    let chunk;
    try {
      chunk = encodeEvent(event, (deps.scheduler ?? asyncScheduler).now());
    } catch (error) {
      deps.logger.error({ err: error }, 'encoder failed on a single event');
      throw new HttpError(500, 'encoder_failed', `encoder ${event.encoder.type} failed: ${(error as Error).message}`);
    }
    const sink = build(event.sink, event.encoder.type);
    try {
      await sink.write(chunk);
      await sink.flush();
      await sink.close();
    } catch (error) {
      await sink.close().catch(() => undefined);
      throw new HttpError(502, 'sink_failed', (error as Error).message);
    }
    ctx.body = {
      sent: true,
      signal_type: event.signal_type,
      latency_ms: Math.round(performance.now() - started),
      ...(warnings.length && { warnings }),
    };
  });
}
