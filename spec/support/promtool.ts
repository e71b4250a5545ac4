import { spawnSync } from 'node:child_process';

/** `promtool check metrics` on text exposition: its exit code and complaints. CI installs prometheus. */
export function promtoolCheck(text: string): { code: number; problems: string[] } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error)
    throw new Error(`promtool is required for this spec (Debian package prometheus): ${run.error.message}`);
  const problems = `${run.stdout}${run.stderr}`.split('\n').filter(Boolean);
  return { code: run.status ?? -1, problems };
}
