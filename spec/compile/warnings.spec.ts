import { expect } from 'chai';
import { loadScenario } from '../../lib/config/index.js';
import { compileScenario } from '../../lib/compile/index.js';
import { entryWarnings } from '../../lib/compile/warnings.js';
import { scenarioDir, svc } from '../support/cli.js';
import { testServer } from '../support/server.js';

/** A traces entry of `duration` whose root span has an incident from `rootStart` and its call one from `callStart`. */
const traces = (duration: string, rootStart: string, callStart: string) => `version: 2
kind: runnable
scenarios:
  - id: checkout
    name: checkout
    signal_type: traces
    rate: 1
    duration: ${duration}
    sink: {type: stdout}
    trace_generator:
      services: {frontend: {}, db: {}}
      root:
        service: frontend
        operation: GET /
        kind: server
        duration: 10ms
        incident: {start: ${rootStart}, for: 1m, error_rate: 0.5}
        calls:
          - {service: db, operation: SELECT, kind: client, duration: 5ms, incident: {start: ${callStart}, for: 1m, duration: 1s}}
`;

const warningsOf = (yaml: string) =>
  compileScenario(loadScenario(yaml, { origin: 'test.yaml', format: 'yaml' }), {
    origin: 'test.yaml',
  }).scenarios.flatMap(entryWarnings);

describe('entryWarnings: what an entry asks for that never happens', () => {
  describe('a traces incident starting at or after the entry ends', () => {
    it('is named by its path, with its start and the duration', () => {
      expect(warningsOf(traces('5m', '1m', '5m'))).to.deep.equal([
        "trace_generator.root.calls[0].incident.start: the incident starts at 5m, at or after the entry's end (duration 5m): it never happens",
      ]);
    });

    it('is not warned of when it starts before the end, or the entry has no end', () => {
      expect(warningsOf(traces('5m', '1m', '299s'))).to.deep.equal([]);
      expect(warningsOf(traces('5m', '1m', '10m').replace('    duration: 5m\n', ''))).to.deep.equal([]);
    });

    it('svc prints it at --dry-run, against the --duration given, and still validates', async () => {
      const { scenario } = scenarioDir('svc-incident-warn-');
      const result = await svc(['run', scenario('t.yaml', traces('5m', '1m', '2m')), '--dry-run', '--duration', '90s']);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.include(
        "[warn] checkout: trace_generator.root.calls[0].incident.start: the incident starts at 2m, at or after the entry's end (duration 1m30s): it never happens\n",
      );
      expect(result.stderr).to.not.include('trace_generator.root.incident');
      expect(result.stderr).to.include('Validation: OK');
    });

    it('svc-server answers it among the warnings of POST /scenarios, and starts the entry', async () => {
      const res = await testServer().request({
        method: 'POST',
        url: '/scenarios',
        headers: { 'content-type': 'text/yaml' },
        payload: traces('1m', '2m', '10s'),
      });
      expect(res.statusCode).to.equal(201);
      expect(res.json().warnings).to.deep.equal([
        "checkout: trace_generator.root.incident.start: the incident starts at 2m, at or after the entry's end (duration 1m): it never happens",
      ]);
    });
  });
});
