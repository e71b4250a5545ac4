import { fromEvent, map, merge, type Observable } from 'rxjs';
import { STOP_SIGNALS } from './first-stop-signal.js';

/**
 * SIGINT and SIGTERM of this process, as a stream of signal names: what stops `svc` and `svc-server` (stop
 * means flush).
 */
export function stopSignals(): Observable<NodeJS.Signals> {
  return merge(...STOP_SIGNALS.map((name) => fromEvent(process, name).pipe(map(() => name))));
}
