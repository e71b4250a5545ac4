const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * The server's log level: `SVC_LOG_LEVEL`, else `RUST_LOG` (the name the specification uses; its
 * `target=level` form is accepted and the first level found is taken), else `info`. An `SVC_LOG_LEVEL`
 * that names no level throws, naming it: it is svc's own setting, so a typo there is a mistake, while
 * `RUST_LOG` may be meant for another program of the environment and is skipped.
 */
export function logLevelOf(env: NodeJS.ProcessEnv): string {
  const own = env.SVC_LOG_LEVEL?.trim();
  if (own) {
    const level = levelIn(own);
    if (!level) throw new Error(`SVC_LOG_LEVEL: expected one of ${LEVELS.join(', ')}, got ${JSON.stringify(own)}`);
    return level;
  }
  return (env.RUST_LOG && levelIn(env.RUST_LOG)) || 'info';
}

/** The first level `value` names, in the `level` or `target=level,…` form, `warning` and `off` included. */
function levelIn(value: string): string | undefined {
  return value
    .split(',')
    .map((part) => part.split('=').at(-1)!.trim().toLowerCase())
    .map((word) => (word === 'warning' ? 'warn' : word === 'off' ? 'silent' : word))
    .find((word) => LEVELS.includes(word));
}
