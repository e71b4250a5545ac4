const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * The server's log level: `SVC_LOG_LEVEL`, else `RUST_LOG` (the name the specification uses; its
 * `target=level` form is accepted and the first level found is taken), else `info`.
 */
export function logLevelOf(env: NodeJS.ProcessEnv): string {
  for (const value of [env.SVC_LOG_LEVEL, env.RUST_LOG]) {
    const level = value
      ?.split(',')
      .map((part) => part.split('=').at(-1)!.trim().toLowerCase())
      .map((word) => (word === 'warning' ? 'warn' : word === 'off' ? 'silent' : word))
      .find((word) => LEVELS.includes(word));
    if (level) return level;
  }
  return 'info';
}
