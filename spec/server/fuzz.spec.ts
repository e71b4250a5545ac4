import { expect } from 'chai';
import { fuzzServer } from '../support/fuzz-run.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { temporaryDirectory } from '../support/directories.js';

/**
 * Hostile bodies against a real svc-server process: none may crash it, freeze it or get a 500.
 * `npm run bench`'s server-fuzz sends 10,000; this spec a few hundred, with two fixed seeds.
 */
describe('svc-server under fuzzed request bodies', function () {
  this.timeout(120_000);
  let server: ServerProcess;

  before(async () => {
    server = await startServerProcess({ args: ['--file-root', temporaryDirectory('svc-fuzz-')], quiet: true });
  });
  after(() => server.kill());

  for (const seed of [1, 2]) {
    it(`answers every body of seed ${seed} in time with a 2xx, 4xx or 502, and keeps answering /health`, async () => {
      const outcome = await fuzzServer(server, 250, { seed });
      expect(outcome.crashed, `crashed:\n${server.stderr().slice(-1500)}`).to.equal(false);
      expect(
        outcome.frozen.map((request) => (request === '/health' ? request : request.body.slice(0, 300))),
        'froze on',
      ).to.deep.equal([]);
      expect(
        outcome.unexpected.map(({ request, answer }) => `${request.body.slice(0, 300)} -> ${answer}`),
        '500s',
      ).to.deep.equal([]);
      expect(outcome.sent).to.equal(250);
      expect(
        Object.keys(outcome.statuses)
          .map(Number)
          .every((status) => status < 500 || status === 502),
        JSON.stringify(outcome.statuses),
      ).to.equal(true);
    });
  }
});
