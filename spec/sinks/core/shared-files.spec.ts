import { expect } from 'chai';
import { writtenFiles } from '../../../lib/sinks/core/shared-files.js';

describe('writtenFiles', () => {
  const om = { encoder: 'openmetrics', trailer: '# EOF\n' };
  const json = { encoder: 'json_lines' };
  const grouped = (files: ReturnType<typeof writtenFiles>) =>
    files.map(({ path, writers }) => ({ path, writers: Object.fromEntries(writers) }));

  it('takes one file however its path is spelt, named as its first writer names it', () => {
    const files = writtenFiles([
      { id: 'cpu', path: 'x.om', encoding: om },
      { id: 'logs', path: 'y.log', encoding: json },
      { id: 'mem', path: './sub/../x.om', encoding: json },
    ]);
    expect(grouped(files)).to.deep.equal([
      { path: 'x.om', writers: { cpu: om, mem: json } },
      { path: 'y.log', writers: { logs: json } },
    ]);
  });

  it('groups by the file each writer gives (a path the server confined), not by the path it names', () => {
    const files = writtenFiles([
      { id: 'cpu', path: 'x.om', file: '/root/x.om', encoding: om },
      { id: 'mem', path: 'link.om', file: '/root/x.om', encoding: json },
      { id: 'disk', path: 'x.om', file: '/elsewhere/x.om', encoding: om },
    ]);
    expect(grouped(files)).to.deep.equal([
      { path: 'x.om', writers: { cpu: om, mem: json } },
      { path: 'x.om', writers: { disk: om } },
    ]);
  });
});
