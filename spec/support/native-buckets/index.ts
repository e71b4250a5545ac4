import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildGoProgram } from '../go-build.js';

/**
 * Native histogram bucket indexes two independent ways, for the specs of operators/internal/exponential-buckets.ts:
 * exactly, from the definition in integer arithmetic, and as Prometheus' client_golang records them (buckets.go,
 * built once per test process against Debian's golang-github-prometheus-client-golang-dev).
 */

/** One value observed at one schema. */
export interface Observation {
  readonly schema: number;
  readonly value: number;
}

const double = new Float64Array(1);
const bits = new BigUint64Array(double.buffer);

/** The double `ulps` representable steps from `value` (> 0) upwards, or downwards when negative. */
export function stepUlps(value: number, ulps: number): number {
  double[0] = value;
  bits[0]! += BigInt(ulps);
  return double[0]!;
}

/** `value` (> 0, finite) as mantissa × 2^exponent with both integers. */
function integerParts(value: number): { mantissa: bigint; exponent: number } {
  double[0] = value;
  const biased = Number(bits[0]! >> 52n);
  const fraction = bits[0]! & ((1n << 52n) - 1n);
  return biased === 0
    ? { mantissa: fraction, exponent: -1074 }
    : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** ⌈log2 n⌉ for a positive integer n. */
const ceilLog2 = (n: bigint) => (n === 1n ? 0 : (n - 1n).toString(2).length);

/**
 * The bucket of `value` (> 0, finite) by the definition, exactly: the least i with value ≤ 2^(i·2^−schema). At a
 * positive schema, value = m·2^e is at most 2^(i/2^schema) exactly when m^(2^schema)·2^(e·2^schema) ≤ 2^i, so the
 * index is e·2^schema + ⌈log2 m^(2^schema)⌉; at another, it is ⌈⌈log2 value⌉ / 2^−schema⌉.
 */
export function bucketByDefinition(value: number, schema: number): number {
  const { mantissa, exponent } = integerParts(value);
  if (schema <= 0) return Math.ceil((exponent + ceilLog2(mantissa)) / 2 ** -schema);
  let power = mantissa;
  for (let s = 0; s < schema; s++) power *= power;
  return exponent * 2 ** schema + ceilLog2(power);
}

/** Exponents that values are scaled by: subnormal, the least normals, around 1, the greatest doubles. */
const EXPONENTS = [-1070, -1040, -1023, -1022, -1021, -64, -1, 0, 1, 2, 64, 1000, 1023, 1024];

/**
 * Values on every bucket bound of every schema −4 to 8 (as `2 ** x` gives it) and 1 to 3 ulps either side,
 * scaled to subnormals and to the greatest doubles; powers of two at every exponent for schemas −4 to 0; spread
 * subnormals; the greatest doubles.
 */
export function boundaryCases(): Observation[] {
  const cases: Observation[] = [];
  const around = (schema: number, value: number) => {
    for (let ulps = -3; ulps <= 3; ulps++) {
      const near = stepUlps(value, ulps);
      if (near > 0 && Number.isFinite(near)) cases.push({ schema, value: near });
    }
  };
  for (let schema = 1; schema <= 8; schema++)
    for (let j = 0; j <= 1 << schema; j++)
      for (const exponent of EXPONENTS) around(schema, 2 ** (j / (1 << schema) + exponent - 1));
  for (let schema = -4; schema <= 0; schema++)
    for (let exponent = -1074; exponent <= 1023; exponent++) around(schema, 2 ** exponent);
  for (let schema = -4; schema <= 8; schema++) {
    for (let k = 1; k < 2 ** 52; k *= 7) cases.push({ schema, value: stepUlps(0, k) });
    for (let ulps = 0; ulps < 8; ulps++) cases.push({ schema, value: stepUlps(Number.MAX_VALUE, -ulps) });
  }
  return cases;
}

const SOURCE = new URL('./buckets.go', import.meta.url).pathname;
const PACKAGE = 'golang-github-prometheus-client-golang-dev';

/** Whether Debian's client_golang package is installed (.ci/run installs it). */
export const clientGolangInstalled = () => existsSync('/usr/share/gocode/src/github.com/prometheus/client_golang');

let built: Promise<string> | undefined;

/** The index of the bucket client_golang records each observation in. */
export async function clientGolangBuckets(observations: readonly Observation[]): Promise<number[]> {
  built ??= buildGoProgram(SOURCE, PACKAGE, 'client_golang bucket program');
  // String(value) is the shortest text that reads back as the same double, in JavaScript and in Go's ParseFloat.
  const input = observations.map(({ schema, value }) => `${schema} ${value}\n`).join('');
  // A refused line ends the program with input unwritten: its status and stderr say why, not the EPIPE.
  const run = spawnSync(await built, { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`client_golang bucket program: ${run.stderr.trim() || run.error}`);
  const indexes = run.stdout.trim().split('\n').map(Number);
  if (indexes.length !== observations.length)
    throw new Error(`client_golang bucket program: ${indexes.length} indexes for ${observations.length} observations`);
  return indexes;
}
