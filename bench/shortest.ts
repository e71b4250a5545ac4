/**
 * Micro-benchmark of writeShortest against String(v) with its characters copied into a Buffer
 * (what the sample-line encoders do), in ns per value, on four kinds of values.
 * Part of `npm run bench`; alone: node --import tsx bench/shortest.ts [rounds]
 */
import { pathToFileURL } from 'node:url';
import { writeText } from '../lib/encoders/grow.js';
import { viewOf, writeShortestAt } from '../lib/encoders/shortest.js';

const COUNT = 1 << 20;
const out = Buffer.allocUnsafe(COUNT * 25);
const view = viewOf(out);

function values(make: (i: number) => number): Float64Array {
  return Float64Array.from({ length: COUNT }, (_, i) => make(i));
}

/** A finite double from 64 random bits. */
function randomBits(): number {
  const pair = new Uint32Array(2);
  const double = new Float64Array(pair.buffer);
  do {
    pair[0] = Math.random() * 2 ** 32;
    pair[1] = Math.random() * 2 ** 32;
  } while (!Number.isFinite(double[0]!));
  return double[0]!;
}

function viaString(vs: Float64Array): number {
  let at = 0;
  for (let i = 0; i < vs.length; i++) at = writeText(out, String(vs[i]!), at);
  return at;
}

function viaShortest(vs: Float64Array): number {
  let at = 0;
  for (let i = 0; i < vs.length; i++) at = writeShortestAt(out, view, vs, i, at);
  return at;
}

/** ns per value of one pass. */
function time(pass: (vs: Float64Array) => number, vs: Float64Array): number {
  const start = process.hrtime.bigint();
  pass(vs);
  return Number(process.hrtime.bigint() - start) / vs.length;
}

/** Prints ns per value of both ways, on each workload, `rounds` passes each. */
export function shortestBench(rounds = 5): void {
  const workloads: [string, Float64Array][] = [
    ['(a) 50 + 10 sin(i/1e5) + jitter', values((i) => 50 + 10 * Math.sin(i / 1e5) + (2 * Math.random() - 1))],
    ['(b) Math.random()', values(() => Math.random())],
    ['(c) integers < 1e9', values(() => Math.floor(Math.random() * 1e9))],
    ['(d) random finite bit patterns', values(randomBits)],
  ];
  for (const [, vs] of workloads) {
    // Same bytes both ways, and warm both paths.
    const expected = out.toString('latin1', 0, viaString(vs));
    if (out.toString('latin1', 0, viaShortest(vs)) !== expected) throw new Error('writeShortest differs from String');
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  console.log(
    `${'values'.padEnd(34)} ${'String+copy'.padStart(22)} ${'writeShortest'.padStart(22)}  speed-up (median)   ns/value: median [min-max] of ${rounds}`,
  );
  for (const [name, vs] of workloads) {
    const viaStringNs: number[] = [];
    const viaShortestNs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      viaStringNs.push(time(viaString, vs));
      viaShortestNs.push(time(viaShortest, vs));
    }
    const show = (xs: number[]) =>
      `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}]`.padStart(22);
    console.log(
      `${name.padEnd(34)} ${show(viaStringNs)} ${show(viaShortestNs)}  ${(median(viaStringNs) / median(viaShortestNs)).toFixed(2)}x`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) shortestBench(Number(process.argv[2] ?? 5));
