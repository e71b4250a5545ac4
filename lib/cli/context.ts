import type { BaseContext } from 'clipanion';
import type { Observable, SchedulerLike } from 'rxjs';

/** What svc's commands run against: captured streams in tests, the process otherwise. */
export interface SvcContext extends BaseContext {
  /** Emits when the run must stop; default: SIGINT or SIGTERM of this process. */
  readonly signals?: Observable<string>;
  readonly scheduler?: SchedulerLike;
}
