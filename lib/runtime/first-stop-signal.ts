/** The signals that stop `svc` and `svc-server` (stop means flush). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const satisfies readonly NodeJS.Signals[];

/**
 * Ends the process as `signal`'s default action does, its listeners removed: the shell reads 130 or 143, and a
 * parent (a shell loop under Ctrl-C) sees that the signal ended it. What a second stop signal does.
 */
export function endBySignal(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}

/**
 * The first stop signal this process receives. Its listeners go once one arrived, as with an
 * unsubscribed stopSignals(): a second signal ends the process. Free of rxjs, so that
 * svc-server waits on it from its start without loading the pipeline's library.
 */
export function firstStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      for (const name of STOP_SIGNALS) process.off(name, stop);
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, stop);
  });
}
