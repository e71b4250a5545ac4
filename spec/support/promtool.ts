import { spawnSync } from 'node:child_process';

/** `promtool check metrics` on text exposition: its exit code and complaints. CI installs prometheus. */
export function promtoolCheck(text: string): { code: number; problems: string[] } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error)
    throw new Error(`promtool is required for this spec (Debian package prometheus): ${run.error.message}`);
  const problems = `${run.stdout}${run.stderr}`.split('\n').filter(Boolean);
  return { code: run.status ?? -1, problems };
}

/**
 * What the Python client's strict OpenMetrics parser (`prometheus_client`, Debian package python3-prometheus-client)
 * says of an exposition: `ok`, or its refusal. It reads one MetricPoint a series: give it one event each.
 */
export function strictOpenMetricsCheck(text: string): string {
  const script =
    'import sys\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families as parse\n' +
    'try:\n  list(parse(sys.stdin.read())); print("ok")\nexcept Exception as e: print(e)';
  const run = spawnSync('/usr/bin/python3', ['-c', script], { input: text, encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`python3-prometheus-client is required for this spec: ${run.error?.message ?? run.stderr}`);
  return run.stdout.trim();
}
