import type { Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';
import type { Sink } from '../../operators/deliver.js';
import type { Catalog } from '../catalog/index.js';
import type { EncoderConfig, SinkConfig } from '../config/types.js';
import type { EntryRegistry } from './registry.js';
import type { Variables } from '../config/interpolate.js';
import type { ScenarioStore } from './state.js';

/** What the HTTP app runs on: injected, so tests drive it through `app.callback()` without listening. */
export interface ServerDeps {
  readonly registry: EntryRegistry;
  readonly logger: Logger;
  /** Bearer key required on every route but `GET /health`; none: open. */
  readonly apiKey?: string;
  /**
   * The server listens on a loopback address without an API key: requests must name it by an IP address or
   * `localhost` (lib/server/middleware/host.ts).
   */
  readonly loopbackOnly?: boolean;
  /** Real path of the directory `file` sinks of requests must write below; none: they are refused. */
  readonly fileRoot?: string;
  /** Where `pack: <name>` and bodies of `@name` resolve (`--catalog`); none: built-in packs only. */
  readonly catalog?: Catalog;
  /**
   * What `${NAME}` in a posted scenario expands to (from the `SVC_ENV_NAME` variables: `bodyVariables`);
   * none: no variable is set.
   */
  readonly variables?: Variables;
  /** Where scenarios started through the API are kept, to start again after a restart (`--state`); none: not kept. */
  readonly state?: ScenarioStore;
  /** True while svc-server starts its `--autostart` and `--state` scenarios: readiness answers 503 until they run. */
  readonly starting?: () => boolean;
  readonly scheduler?: SchedulerLike;
  /** Builds the sink of a single event (`POST /events`); the encoder type picks its content type. */
  readonly createSink?: (config: SinkConfig, encoder: EncoderConfig['type']) => Sink;
}
