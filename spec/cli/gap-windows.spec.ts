import { expect } from 'chai';
import { lines, scenarioDir, svc } from '../support/cli.js';

// The reference tool's "exporter that was down twice" shape: one-shot windows at fixed offsets.
const SCENARIO = `version: 2
kind: runnable
scenarios:
  - signal_type: metrics
    name: node_cpu_seconds_total
    rate: 1
    duration: 10s
    start_time: 2024-05-01T10:00:00Z
    generator:
      type: constant
      value: 42.0
    gap_windows:
      - at: 2s
        for: 3s
      - at: 8s
        for: 1s
`;

describe('svc run: gap_windows (one-shot silences)', () => {
  it('a reference-tool file validates, says where the silences are, and emits nothing inside them', async () => {
    const file = scenarioDir('svc-gap-windows-').scenario('down-twice.yaml', SCENARIO);
    const dry = await svc(['run', file, '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stderr).to.match(/schedules: +gap 3s once at 2s; gap 1s once at 8s/);

    const run = await svc(['run', file, '--backfill', '--quiet']);
    expect(run.code, run.stderr).to.equal(0);
    const start = Date.parse('2024-05-01T10:00:00Z');
    const seconds = lines(run.stdout).map((line) => (Number(line.split(' ')[2]) - start) / 1000);
    expect(seconds).to.deep.equal([0, 1, 5, 6, 7, 9]);
  });
});
