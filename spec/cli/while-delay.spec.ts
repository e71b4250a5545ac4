import { expect } from 'chai';
import { scenarioDir, svc } from '../support/cli.js';

/** A flapping link and a series gated on it; `gate` is the gated entry's gate, in one shape or the other. */
const scenario = (gate: string) => `version: 2
kind: runnable
defaults:
  rate: 1
  duration: 20s
  start_time: 2024-05-01T10:00:00Z
scenarios:
  - id: primary_link
    signal_type: metrics
    name: interface_oper_state
    generator: { type: flap, up_duration: 4s, down_duration: 4s }
  - id: backup_traffic
    signal_type: metrics
    name: backup_link_throughput
    generator: { type: constant, value: 50 }
${gate}`;

const REFERENCE = `    while: { ref: primary_link, op: "<", value: 1 }
    delay:
      open: 1s
      close: { duration: 2s, snap_to: 1 }
`;
const OURS = `    while: { ref: primary_link, op: "<", value: 1, delay: { open: 1s, close: 2s }, snap_to: 1 }
`;

describe("svc run: the reference tool's delay beside while", () => {
  it('validates, and runs exactly as while.delay and while.snap_to do', async () => {
    const { scenario: write } = scenarioDir('svc-while-delay-');
    const reference = write('reference.yaml', scenario(REFERENCE));
    const dry = await svc(['run', reference, '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stderr).to.include(
      'while:        primary_link < 1 (opens 1s after it holds, closes 2s after it stops), snap_to 1 on close',
    );

    const run = await svc(['run', reference, '--backfill', '--quiet']);
    const ours = await svc(['run', write('ours.yaml', scenario(OURS)), '--backfill', '--quiet']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('backup_link_throughput 50 ').and.include('backup_link_throughput 1 ');
    expect(run.stdout).to.equal(ours.stdout);
  });
});
