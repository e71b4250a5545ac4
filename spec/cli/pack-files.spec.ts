import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lines, scenarioDir, svc } from '../support/cli.js';

const PACK = `version: 2
kind: composable
name: my_app_metrics
description: Core application metrics
category: application
shared_labels: { service: "" }
metrics:
  - name: http_requests_total
    generator: { type: step, start: 0.0, step_size: 10.0 }
  - name: http_errors_total
    generator: { type: constant, value: 0.0 }
`;

/** A reference-tool scenario in a fresh directory whose entry names its pack as `pack`; the pack in packs/. */
function packScenario(pack: (dir: string) => string): { dir: string; file: string } {
  const { dir, scenario } = scenarioDir('svc-pack-file-');
  mkdirSync(join(dir, 'packs'));
  writeFileSync(join(dir, 'packs', 'my-pack.yaml'), PACK);
  const file = scenario(
    'run.yaml',
    `version: 2
kind: runnable
defaults:
  rate: 1
  duration: 2s
  start_time: 2024-05-01T10:00:00Z
  encoder: { type: prometheus_text }
  sink: { type: stdout }
scenarios:
  - signal_type: metrics
    pack: ${pack(dir)}
    labels: { service: api }
`,
  );
  return { dir, file };
}

describe('svc run: a pack given by its file path (pack: ./packs/my-pack.yaml)', () => {
  it('reads the pack relative to the scenario file, not the working directory, and runs its metrics', async () => {
    const { dir, file } = packScenario(() => './packs/my-pack.yaml');
    const dry = await svc(['run', file, '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stderr).to.include('entry 1: my-pack.http_requests_total');
    expect(dry.stderr).to.include(`pack:         my_app_metrics (${join(dir, 'packs', 'my-pack.yaml')})`);
    expect(dry.stderr).to.include('Validation: OK (2 scenarios)');

    const run = await svc(['run', file, '--backfill', '--quiet']);
    expect(run.code, run.stderr).to.equal(0);
    const at = Date.parse('2024-05-01T10:00:00Z');
    expect(lines(run.stdout).sort()).to.deep.equal([
      `http_errors_total{service="api"} 0 ${at}`,
      `http_errors_total{service="api"} 0 ${at + 1000}`,
      `http_requests_total{service="api"} 0 ${at}`,
      `http_requests_total{service="api"} 10 ${at + 1000}`,
    ]);
  });

  it("runs a pack file in the reference tool's shape, without version and kind, unchanged", async () => {
    const { file } = packScenario((dir) => {
      writeFileSync(join(dir, 'packs', 'reference.yaml'), PACK.replace('version: 2\nkind: composable\n', ''));
      return './packs/reference.yaml';
    });
    const run = await svc(['run', file, '--backfill', '--quiet']);
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)).to.have.length(4);
    expect(run.stdout).to.include('http_requests_total{service="api"} 10 ');
  });

  it('takes an absolute path too', async () => {
    const { file } = packScenario((dir) => join(dir, 'packs', 'my-pack.yaml'));
    const dry = await svc(['run', file, '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stderr).to.include('Validation: OK (2 scenarios)');
  });

  it('names the pack file and where it looked when it is missing, and the field of a broken one', async () => {
    const missing = packScenario(() => './packs/nope.yaml');
    const gone = await svc(['run', missing.file, '--dry-run']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.include(
      `./packs/nope.yaml: cannot read the pack file (no such file): looked for ${join(missing.dir, 'packs', 'nope.yaml')} (from the scenario file's directory)`,
    );
    expect(gone.stderr).not.to.match(/\n\s+at /);

    const broken = packScenario((dir) => {
      writeFileSync(join(dir, 'packs', 'broken.yaml'), PACK.replace('step_size: 10.0', 'step_size: ten'));
      return './packs/broken.yaml';
    });
    const bad = await svc(['run', broken.file, '--dry-run']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/broken\.yaml: metrics\[0\] \(http_requests_total\): generator\.step_size: /);
  });
});
