/** The signals that stop `svc` and `svc-server` (stop means flush). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const satisfies readonly NodeJS.Signals[];

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
