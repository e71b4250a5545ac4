import { fromEvent, map, merge, type Observable } from 'rxjs';

/** SIGINT and SIGTERM of this process, as a stream of signal names: what stops `svc` and `svc-server` (stop means flush). */
export function stopSignals(): Observable<NodeJS.Signals> {
  const signal = (name: NodeJS.Signals) => fromEvent(process, name).pipe(map(() => name));
  return merge(signal('SIGINT'), signal('SIGTERM'));
}
