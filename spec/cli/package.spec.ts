import { expect } from 'chai';
import { readFileSync } from 'node:fs';

describe('the npm package', () => {
  it('cannot be published under the name svc, which another package has on the registry', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; private?: boolean };
    expect(pkg.private === true || pkg.name.startsWith('@'), 'private, or a scoped name').to.equal(true);
  });
});
