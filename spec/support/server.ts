import { Writable } from 'node:stream';
import { expect } from 'chai';
import inject, { type InjectOptions, type Response } from 'light-my-request';
import { openapiProblems } from './openapi.js';
import { TestScheduler } from 'rxjs/testing';
import { createApp } from '../../lib/server/app.js';
import { createLogger } from '../../lib/server/logger.js';
import { EntryRegistry, type RegistryOptions } from '../../lib/server/registry.js';
import type { ServerDeps } from '../../lib/server/deps.js';
import type { SinkConfig } from '../../lib/config/types.js';
import { MemorySink } from './sinks.js';

/** An app on a virtual clock with in-memory sinks and a captured log, driven without listening. */
export function testServer(
  options: {
    apiKey?: string;
    deps?: Partial<ServerDeps>;
    registry?: Partial<RegistryOptions>;
    failingSink?: Error;
    unbuildableSink?: string;
  } = {},
) {
  const scheduler = new TestScheduler(() => undefined);
  scheduler.maxFrames = 0;
  const sinks: MemorySink[] = [];
  const createSink = (config: SinkConfig) => {
    if ('path' in config && config.path === options.unbuildableSink) throw new Error(`cannot open ${config.path}`);
    const sink = new MemorySink();
    sink.failWith = options.failingSink;
    sinks.push(sink);
    return sink;
  };
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger(
    'debug',
    new Writable({
      write(chunk, _encoding, done) {
        logs.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  const registry = new EntryRegistry({
    scheduler,
    createSink: (entry) => createSink(entry.sink),
    logger,
    ...options.registry,
  });
  const app = createApp({ registry, logger, apiKey: options.apiKey, scheduler, createSink, ...options.deps });
  const handler = app.callback();
  return {
    scheduler,
    sinks,
    logs,
    registry,
    /** The app's request handler, for a spec that serves it on a real port. */
    handler,
    /** Sends a request; an answer that departs from docs/openapi.json fails the spec (support/openapi.ts). */
    request: (opts: InjectOptions) => inject(handler, opts).then(documented),
    /** POSTs `body` to `url` as JSON (`raw` instead: that text as the body, for malformed JSON). */
    postJson: (url: string, body: unknown, raw?: string) => {
      const opts = {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: raw ?? JSON.stringify(body),
      } as const;
      return inject(handler, opts).then(documented);
    },
    /** Moves virtual time forward by `ms`, running everything due. */
    advance(ms: number) {
      scheduler.maxFrames = scheduler.now() + ms;
      scheduler.flush();
      scheduler.frame = scheduler.maxFrames;
    },
  };
}

/** Passes an answer on when docs/openapi.json describes it; fails the spec, naming every difference, when not. */
function documented(res: Response): Response {
  const { method, url } = res.raw.req;
  expect(openapiProblems(method!, url!, res), 'the answer departs from docs/openapi.json').to.deep.equal([]);
  return res;
}

export const yaml = (body: string) => ({ 'content-type': 'text/yaml' as const, body });

/**
 * Holds `registry`'s turn ({@link EntryRegistry.inTurn}) until `open()`: `queued` settles once a start asked for the
 * next turn, its file compiled by then; `held` once the held turn is over.
 */
export function heldTurn(registry: EntryRegistry): { queued: Promise<void>; open: () => void; held: Promise<void> } {
  let release!: () => void;
  const held = registry.inTurn(() => new Promise<void>((resolve) => (release = resolve)));
  const inTurn = registry.inTurn.bind(registry);
  const queued = new Promise<void>((resolve) => {
    registry.inTurn = (start) => {
      resolve();
      return inTurn(start);
    };
  });
  // Set once the held turn began, a tick after this call.
  return { queued, open: () => release(), held };
}
