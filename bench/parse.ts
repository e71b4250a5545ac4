/**
 * `node --expose-gc --import tsx bench/parse.ts`: the worst cases of loading and compiling a
 * request body of up to 1 MiB (the server's body limit) as POST /scenarios does, in time the
 * event loop is blocked and in heap growth. Prints figures; asserts nothing.
 */
import { loadScenario } from '../lib/config/load.js';
import { compileScenario } from '../lib/compile/index.js';
import { MAX_TEXT_BYTES } from '../lib/language/limits.js';

const MiB = MAX_TEXT_BYTES;
const fill = (head: string, unit: (i: number) => string, tail = '', limit = MiB) => {
  const parts = [head];
  let length = head.length + tail.length;
  for (let i = 0; ; i++) {
    const part = unit(i);
    if (length + part.length > limit) break;
    parts.push(part);
    length += part.length;
  }
  return parts.join('') + tail;
};
const entry = (i: number) =>
  `{"id":"e${i}","signal_type":"metrics","name":"m","rate":1,"generator":{"type":"constant","value":1}}`;
const sineAfter = (i: number) =>
  `{"id":"s${i}","signal_type":"metrics","name":"m","rate":0.001,"generator":{"type":"sine","amplitude":1,"period_secs":1}},` +
  `{"id":"a${i}","signal_type":"metrics","name":"m","rate":1,"generator":{"type":"constant","value":1},"after":{"ref":"s${i}","op":">","value":0.5}}`;

const json = (entries: string[]) => `{"version":2,"kind":"runnable","scenarios":[${entries.join(',')}]}`;
const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`label_${i}`, `value_${i}`]));
const heavy = (i: number) =>
  JSON.stringify({
    id: `h${i}`,
    signal_type: 'metrics',
    name: 'm',
    rate: 1,
    generator: { type: 'constant', value: 1 },
    labels: labels(2),
    dynamic_labels: Array.from({ length: 16 }, (_, k) => ({ key: `d${k}`, cardinality: 2 })),
    cardinality_spikes: Array.from({ length: 8 }, (_, k) => ({
      label: `s${k}`,
      every: '1m',
      for: '1s',
      cardinality: 1,
    })),
  });

/** Each case: the text of a request body and its format. Refused ones show their message. */
const cases: Record<string, [string, 'yaml' | 'json']> = {
  'YAML over 128 KiB (1 MiB of nesting)': ['['.repeat(MiB / 2) + ']'.repeat(MiB / 2), 'yaml'],
  'YAML flow nesting past 64 levels': ['['.repeat(60_000) + ']'.repeat(60_000), 'yaml'],
  'YAML block nesting past 64 levels': [`${'- '.repeat(60_000)}x`, 'yaml'],
  'YAML flow list past 5000 tokens': [`a: [${'1,'.repeat(60_000)}1]`, 'yaml'],
  'YAML flow list at 5000 tokens': [`a: [${'1,'.repeat(2_490)}1]`, 'yaml'],
  'YAML block list at 5000 tokens': [`a:\n${'- 1\n'.repeat(1_240)}`, 'yaml'],
  'YAML mapping at 5000 tokens': [Array.from({ length: 990 }, (_, i) => `k${i}: 1`).join('\n'), 'yaml'],
  'YAML nested 64 deep at 5000 tokens': [
    Array.from({ length: 35 }, () => `${'['.repeat(63)}1${']'.repeat(63)}`)
      .join('\n')
      .replace(/^/, '- ')
      .replace(/\n/g, '\n- '),
    'yaml',
  ],
  'YAML 128 KiB of double-quoted text': [`a: "${'x'.repeat(128 * 1024 - 10)}"`, 'yaml'],
  'YAML entries at 5000 tokens': [
    fill('version: 2\nkind: runnable\nscenarios:\n', (i) => `- ${entry(i)}\n`, '', 15_000),
    'yaml',
  ],
  'JSON nesting past 64 levels (1 MiB)': ['['.repeat(MiB / 2) + ']'.repeat(MiB / 2), 'json'],
  'JSON 500 entries': [json(Array.from({ length: 500 }, (_, i) => entry(i))), 'json'],
  'JSON 500 entries, 16 dynamic labels, 8 spikes each': [json(Array.from({ length: 500 }, (_, i) => heavy(i))), 'json'],
  'JSON 1 MiB of entries (past 500)': [
    fill('{"version":2,"kind":"runnable","scenarios":[', (i) => `${entry(i)},`, `${entry(-1)}]}`),
    'json',
  ],
  'JSON 1 MiB sequence values': [
    `{"signal_type":"metrics","name":"m","rate":1,"generator":{"type":"sequence","values":[${'1,'.repeat(MiB / 2 - 100)}1]}}`,
    'json',
  ],
  'JSON 250 sine crossings (after)': [json(Array.from({ length: 250 }, (_, i) => sineAfter(i))), 'json'],
  'JSON after chain of 500': [
    json(
      Array.from(
        { length: 500 },
        (_, i) =>
          `{"id":"c${i}","signal_type":"metrics","name":"m","rate":1,"generator":{"type":"step","step_size":1}${i ? `,"after":{"ref":"c${i - 1}","op":">","value":1}` : ''}}`,
      ),
    ),
    'json',
  ],
};

function once(text: string, format: 'yaml' | 'json'): { ms: number; outcome: string } {
  const started = performance.now();
  let outcome = 'accepted';
  try {
    compileScenario(loadScenario(text, { origin: 'body', format }), { origin: 'body' });
  } catch (error) {
    outcome = (error as Error).message
      .split('\n')[0]!
      .replace(/^body: /, '')
      .slice(0, 80);
  }
  return { ms: performance.now() - started, outcome };
}

const RUNS = 7;
console.log(`case | bytes | first run ms | warm runs ms, best-worst of ${RUNS - 1} | heap growth MiB | outcome`);
for (const [name, [text, format]] of Object.entries(cases)) {
  global.gc?.();
  const heap = process.memoryUsage().heapUsed;
  let peak = 0;
  const times: number[] = [];
  let outcome = '';
  for (let i = 0; i < RUNS; i++) {
    const run = once(text, format);
    peak = Math.max(peak, process.memoryUsage().heapUsed - heap);
    times.push(run.ms);
    outcome = run.outcome;
  }
  const warm = times.slice(1);
  const ms = (n: number) => n.toFixed(1);
  console.log(
    `${name} | ${Buffer.byteLength(text)} | ${ms(times[0]!)} | ${ms(Math.min(...warm))}-${ms(Math.max(...warm))} | ${(peak / 2 ** 20).toFixed(1)} | ${outcome}`,
  );
}
