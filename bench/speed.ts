/**
 * Issue 15's table, measured on whole processes: `bin/svc run FILE` (file sink, rate 1e8, a
 * few seconds), each row repeated (median, and the spread from the slowest to the fastest run),
 * the two sides of every ratio measured in the same run: the constant gauge against the plainest
 * hand-written Node loop writing the same lines, the cardinality row's peak RSS against the
 * same run at cardinality 1. Needs `npm run build` (bin/svc runs dist/).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BENCH_HISTOGRAM, BENCH_LABELS as LABELS, exemplarEntry } from './entry.js';
import { PACKAGE_ROOT } from '../spec/support/package-root.js';

const SVC = join(PACKAGE_ROOT, 'bin', 'svc');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Alternations of the exemplar rows, whose cost is a few per cent. */
const EXEMPLAR_RUNS = 7;

interface Measured {
  /** Events (or lines) a second. */
  readonly rate: number;
  /** Peak resident set of the process, in MiB. */
  readonly peakMiB: number;
  /** Events per CPU second of the process (all its threads): less swayed by other work on the machine than `rate`. */
  readonly perCpuSecond?: number;
}

/**
 * A module node imports before svc (`--import`): at exit it writes the CPU time of the whole process (every thread,
 * from getrusage) to stderr, which is a pipe here and so written synchronously.
 */
const CPU_REPORT = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('CPU_US '+(u.userCPUTime+u.systemCPUTime)+'\\n')})`;

/** Runs `command`, sampling its resident set every 50 ms; resolves with the peak and its stderr. */
function watched(command: string, args: readonly string[]): Promise<{ peakMiB: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peak = 0;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const sample = setInterval(() => {
      try {
        const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (rss) peak = Math.max(peak, Number(rss[1]) / 1024);
      } catch {
        // The process has just exited.
      }
    }, 50);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      if (code === 0) resolve({ peakMiB: peak, stderr });
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/** The flags of a row measured on one core: without them a run planning 1,000,000 events/s or more takes one worker per core. */
const ONE_WORKER = ['--workers', '1'];

/** One entry of a runnable file, run by `svc run` for `seconds`; its events a second from the STOPPED line. */
async function svcRun(
  dir: string,
  entry: Record<string, unknown>,
  seconds: number,
  out = join(dir, 'speed.out'),
  flags: readonly string[] = ONE_WORKER,
): Promise<Measured> {
  const file = join(dir, 'speed.yaml');
  const sink = { type: 'file', path: out };
  writeFileSync(
    file,
    stringify({
      version: 2,
      kind: 'runnable',
      scenarios: [{ rate: 1e8, duration: `${seconds}s`, labels: LABELS, sink, ...entry }],
    }),
  );
  const { peakMiB, stderr } = await watched(process.execPath, [`--import=${CPU_REPORT}`, SVC, 'run', file, ...flags]);
  const events = /STOPPED \| events: (\d+)/.exec(stderr);
  if (!events) throw new Error(`no STOPPED line from svc run: ${stderr}`);
  const cpuMicros = Number(/CPU_US (\d+)/.exec(stderr)?.[1]);
  return { rate: Number(events[1]) / seconds, peakMiB, perCpuSecond: Number(events[1]) / (cpuMicros / 1e6) };
}

/** The same lines as the constant gauge, built by string concatenation and written with writeSync, 4096 a chunk. */
const HAND_WRITTEN = `
const { openSync, writeSync, closeSync } = require('node:fs');
const [path, seconds] = process.argv.slice(1);
const fd = openSync(path, 'w');
const prefix = 'bench_gauge{host="bench-1",region="eu-west",service="api"} 1 ';
const started = performance.now();
let events = 0;
while (performance.now() - started < seconds * 1000) {
  const ts = String(Date.now());
  let chunk = '';
  for (let i = 0; i < 4096; i++) chunk += prefix + ts + '\\n';
  writeSync(fd, chunk);
  events += 4096;
}
closeSync(fd);
process.stderr.write(String(events / ((performance.now() - started) / 1000)));
`;

async function handWritten(dir: string, seconds: number, out = join(dir, 'loop.out')): Promise<Measured> {
  const { peakMiB, stderr } = await watched(process.execPath, ['-e', HAND_WRITTEN, out, String(seconds)]);
  return { rate: Number(stderr), peakMiB };
}

/** `RUNS` repetitions of every side, interleaved so that a slow spell of the machine hits both. */
async function repeated<K extends string>(
  sides: Record<K, () => Promise<Measured>>,
  runs = RUNS,
): Promise<Record<K, Measured[]>> {
  const out = Object.fromEntries(Object.keys(sides).map((k) => [k, [] as Measured[]])) as Record<K, Measured[]>;
  for (let run = 0; run < runs; run++) {
    for (const key of Object.keys(sides) as K[]) out[key].push(await sides[key]());
  }
  return out;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const spread = (xs: readonly number[]) => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
const rates = (ms: readonly Measured[]) => ms.map((m) => m.rate);
const peaks = (ms: readonly Measured[]) => ms.map((m) => m.peakMiB);
const line = (label: string, ms: readonly Measured[], unit: string, goal: string) =>
  console.log(
    `  ${label.padEnd(34)} ${fmt(median(rates(ms))).padStart(10)} ${unit} (${spread(rates(ms))})  goal: ${goal}`,
  );

export async function speedBench(dir: string, seconds = 5): Promise<void> {
  console.log(
    `speed (issue 15): bin/svc run, file sink, rate 1e8, ${seconds} s a run, median of ${RUNS} (spread); --workers 1 but in the worker rows`,
  );
  const constant = await repeated({ svc: () => svcRun(dir, gauge, seconds), loop: () => handWritten(dir, seconds) });
  line('constant gauge, metrics_text', constant.svc, 'events/s', '>= 5,000,000');
  line('hand-written loop, same lines', constant.loop, 'events/s', '');
  const ratios = constant.svc.map((m, i) => m.rate / constant.loop[i]!.rate);
  console.log(
    `  ${'ratio, run by run'.padEnd(34)} ${median(ratios).toFixed(2).padStart(10)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})  goal: >= 1.5`,
  );

  // The same two into /dev/null: what the processors alone reach, without the disk's page cache.
  const bare = await repeated({
    svc: () => svcRun(dir, gauge, seconds, '/dev/null'),
    loop: () => handWritten(dir, seconds, '/dev/null'),
  });
  line('the same into /dev/null', bare.svc, 'events/s', '');
  line('hand-written loop into /dev/null', bare.loop, 'events/s', '');

  const sine = await repeated({
    svc: () =>
      svcRun(
        dir,
        { ...gauge, generator: { type: 'sine', amplitude: 10, period_secs: 60, offset: 50 }, jitter: 1 },
        seconds,
      ),
  });
  line('sine + jitter', sine.svc, 'events/s', '>= 2,500,000');

  const histogram = await repeated({ svc: () => svcRun(dir, BENCH_HISTOGRAM, seconds) });
  // Each event is a line per bucket, le="+Inf", _sum and _count.
  line(
    'histogram, 11 buckets, 10 obs/tick',
    histogram.svc.map((m) => ({ ...m, rate: m.rate * (BENCH_HISTOGRAM.buckets.length + 3) })),
    'lines/s ',
    '>= 4,000,000',
  );
  // The same entry also recording a native histogram (schema 3, at most 160 buckets) of the same observations;
  // metrics_text writes the classic lines only, so the difference is the native recording and its snapshot per event.
  const native = await repeated({ svc: () => svcRun(dir, { ...BENCH_HISTOGRAM, native: {} }, seconds) });
  const observations = (ms: readonly Measured[]) => ms.map((m) => ({ ...m, rate: m.rate * 10 }));
  line('histogram observations', observations(histogram.svc), 'obs/s   ', '');
  line('native histogram observations', observations(native.svc), 'obs/s   ', '');

  // Exemplars on and off, the same openmetrics histogram, runs alternated: an exemplar on every event, and on one
  // event in ten (random ids; from a traces entry only the ids differ), written after its bucket's line. The cost is
  // taken alternation by alternation, in events per CPU second, over more runs than the other rows: a few per cent
  // is less than what other work on the machine moves a run's rate.
  const exemplarSides = await repeated(
    {
      off: () => svcRun(dir, exemplarEntry('off'), seconds),
      every: () => svcRun(dir, exemplarEntry('every'), seconds),
      tenth: () => svcRun(dir, exemplarEntry('tenth'), seconds),
    },
    Math.max(RUNS, EXEMPLAR_RUNS),
  );
  line('openmetrics histogram, exemplars off', exemplarSides.off, 'events/s', '');
  line('  an exemplar on every event', exemplarSides.every, 'events/s', '');
  line('  an exemplar on one event in ten', exemplarSides.tenth, 'events/s', '');
  for (const [label, on] of [
    ['every event', exemplarSides.every],
    ['one in ten', exemplarSides.tenth],
  ] as const) {
    const costs = on.map((m, i) => 100 * (1 - m.perCpuSecond! / exemplarSides.off[i]!.perCpuSecond!));
    console.log(
      `  ${`  exemplars cost, ${label}`.padEnd(34)} ${median(costs).toFixed(1).padStart(10)} % (${Math.min(...costs).toFixed(1)}–${Math.max(...costs).toFixed(1)}) a CPU second, run by run  goal: <= 10`,
    );
  }

  const wide = await repeated({
    million: () => svcRun(dir, pods(1_000_000), seconds),
    one: () => svcRun(dir, pods(1), seconds),
  });
  line('1 label of cardinality 1,000,000', wide.million, 'events/s', '>= 2,000,000');
  const extra = wide.million.map((m, i) => m.peakMiB - wide.one[i]!.peakMiB);
  console.log(
    `  ${'  its peak RSS'.padEnd(34)} ${fmt(median(peaks(wide.million))).padStart(10)} MiB, ${fmt(median(extra))} MiB over the same run at cardinality 1 (${fmt(median(peaks(wide.one)))} MiB)  goal: <= +50`,
  );

  const logEntry = {
    signal_type: 'logs',
    name: 'bench_logs',
    encoder: { type: 'json_lines' },
    log_generator: {
      type: 'template',
      templates: [{ message: 'user {user} logged in from {ip}' }, { message: 'GET {path} took {ms}ms' }],
      field_pools: {
        user: ['ann', 'bob', 'chen'],
        ip: ['10.0.0.1', '10.0.0.2'],
        path: ['/', '/api'],
        ms: ['3', '12', '48'],
      },
      severity_weights: { info: 7, warn: 2, error: 1 },
      seed: 1,
    },
  };
  const logs = await repeated({ svc: () => svcRun(dir, logEntry, seconds) });
  line('logs, json_lines, 2 templates', logs.svc, 'events/s', '>= 1,000,000');

  await workersBench(dir, seconds);
}

const gauge = { signal_type: 'metrics', name: 'bench_gauge', generator: { type: 'constant', value: 1 } };
const pods = (cardinality: number) => ({ ...gauge, dynamic_labels: [{ key: 'pod', cardinality }] });

/**
 * Every core: a 1,000-pod constant gauge on one worker thread, on two, and with the default
 * (no `--workers`: one per core at this rate), each emitting its share of the series. Alone:
 * `node --import tsx -e "import('./bench/speed.ts').then((m) => m.workersBench('/tmp'))"`.
 */
export async function workersBench(dir: string, seconds = 5): Promise<void> {
  const fleet = pods(1000);
  for (const [where, out] of [
    ['file', undefined],
    ['/dev/null', '/dev/null'],
  ] as const) {
    const workers = (flags: readonly string[]) => () => svcRun(dir, fleet, seconds, out, flags);
    const scaling = await repeated({
      one: workers(ONE_WORKER),
      two: workers(['--workers', '2']),
      default: workers([]),
    });
    line(`1,000 pods, --workers 1, ${where}`, scaling.one, 'events/s', '');
    line(`1,000 pods, --workers 2, ${where}`, scaling.two, 'events/s', '');
    const ratios = scaling.two.map((m, i) => m.rate / scaling.one[i]!.rate);
    console.log(
      `  ${'  scaling, run by run'.padEnd(34)} ${median(ratios).toFixed(2).padStart(10)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})  goal: >= 1.8`,
    );
    line(`constant gauge, default workers, ${where}`, scaling.default, 'events/s', '');
  }
}
