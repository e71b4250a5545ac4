/**
 * The cost of exemplars counted in instructions, which stay put from run to run where CPU time moves by more than the
 * aim (docs/performance.md, "Session 40"). The bench entry's whole chain, as {@link exemplarCostBench} runs it (virtual
 * time, a sink that drops the bytes), runs under valgrind's cachegrind, one process a side and a length, with
 * `--single-threaded` (no compiler or collector threads, whose work would land in one run and not the other), for
 * `shortMs` and then `longMs` virtual milliseconds: the difference between the two is the work of the events in
 * between, without start-up and compilation. Each pair runs `repeats` times: the median is printed with the range
 * (the collector's timing still moves a run by some hundreds of instructions an event). Instructions are not time (a missed branch or cache line costs many),
 * so this is a second figure beside the time of exemplar-cost.ts, not the aim's: it says whether a change took work
 * off an exemplar even when the time bench cannot tell.
 *
 * Needs valgrind (Debian package `valgrind`); run as a script, `node exemplar-instructions.js <side> <ms>` runs one
 * side's chain for `ms` virtual milliseconds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EXEMPLAR_SIDES, type ExemplarSide as Side } from './entry.js';
import { runVirtual, sideEntry } from './exemplar-cost.js';

/** The valgrind processes running, killed when one fails. */
const running = new Set<ReturnType<typeof spawn>>();

/** Instructions cachegrind counted in one run of `side`'s chain for `ms` virtual milliseconds, and its events. */
function countedRun(side: Side, ms: number): Promise<{ instructions: number; events: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=cachegrind',
        '--cache-sim=no',
        '--cachegrind-out-file=/dev/null',
        process.execPath,
        '--single-threaded',
        fileURLToPath(import.meta.url),
        side,
        String(ms),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      const refs = /I\s+refs:\s+([\d,]+)/.exec(err)?.[1];
      const events = /^events (\d+)$/m.exec(out)?.[1];
      if (code !== 0 || !refs || !events)
        reject(new Error(`cachegrind of ${side} ${ms} ms: exit ${code}, ${err.trim().split('\n').at(-1)}`));
      else resolve({ instructions: Number(refs.replaceAll(',', '')), events: Number(events) });
    });
  });
}

/**
 * Prints each side's instructions an event, and an exemplar's on every event and on one in ten, over "off": the
 * median of `repeats` runs, with their range. A run that fails (valgrind missing or refusing) skips the figure, not the
 * benches after it.
 */
export async function exemplarInstructionsBench({ shortMs = 40, longMs = 80, repeats = 3 } = {}): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.log('  exemplars in instructions: skipped, valgrind is not installed (Debian package valgrind)');
    return;
  }
  const sides = Object.keys(EXEMPLAR_SIDES) as Side[];
  const perEvent = new Map<Side, number[]>(sides.map((side) => [side, []]));
  try {
    for (let r = 0; r < repeats; r++)
      for (const side of sides) {
        // Two runs at a time: one a core on the machines of this project.
        const [short, long] = await Promise.all([countedRun(side, shortMs), countedRun(side, longMs)]);
        perEvent.get(side)!.push((long.instructions - short.instructions) / (long.events - short.events));
      }
  } catch (error) {
    for (const child of running) child.kill();
    console.log(`  exemplars in instructions: skipped, ${(error as Error).message}`);
    return;
  }
  const off = median(perEvent.get('off')!);
  const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
  console.log(
    `  exemplars in instructions (cachegrind, the chain's ${longMs - shortMs} virtual ms after its first ${shortMs}, median of ${repeats}): off ${Math.round(off).toLocaleString('en-US')} an event (${range(perEvent.get('off')!)})`,
  );
  for (const [side, label] of [
    ['every', 'every event'],
    ['tenth', 'one in ten'],
  ] as const) {
    const runs = perEvent.get(side)!;
    const more = median(runs) - off;
    console.log(
      `  ${`  exemplars cost, ${label}`.padEnd(34)} ${((100 * more) / off).toFixed(1).padStart(10)} % (+${Math.round(more).toLocaleString('en-US')} instructions an event; the side's runs ${range(runs)})`,
    );
  }
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** As a script: runs one side's chain for the virtual milliseconds given, and prints its events. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [side, ms] = [process.argv[2] as Side, Number(process.argv[3])];
  const { run, step } = runVirtual(sideEntry(side));
  for (let i = 0; i < ms; i++) step();
  console.log(`events ${run.stats.totalEvents}`);
  process.exit(0);
}
