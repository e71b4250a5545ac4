import { expect } from 'chai';
import { loadPack } from '../../lib/config/index.js';
import { load, problems } from '../support/scenarios.js';
import { lines, svc } from '../support/cli.js';
import { directory } from '../support/directories.js';

const ENTRY = '  - { signal_type: metrics, name: up, rate: 1, generator: { type: constant, value: 1 } }';

describe('metadata of scenario and pack files', () => {
  it('keeps scenario_name, description, category and tags of a scenario file', () => {
    const file = load(`version: 2
kind: runnable
scenario_name: link-flap
description: an interface flaps
category: network
tags: [snmp, flap]
scenarios:
${ENTRY}
`);
    expect(file).to.include({ name: 'link-flap', description: 'an interface flaps', category: 'network' });
    expect(file.tags).to.deep.equal(['snmp', 'flap']);
  });

  it('checks them: scenario_name is name, tags are names', () => {
    expect(
      problems(
        `version: 2\nkind: runnable\nname: a\nscenario_name: b\ntags: [ok, "not ok"]\ncategory: ""\nscenarios:\n${ENTRY}\n`,
      ),
    ).to.deep.equal([
      'tags[1]: expected a tag matching [a-zA-Z0-9_][a-zA-Z0-9_.-]*, got "not ok"',
      'category: expected a non-empty string, got ""',
      'scenario_name: the same as name (the reference tool calls it scenario_name): give one of them',
    ]);
  });

  it("keeps the metadata beside a single entry, as the reference tool's single-entry files carry it", () => {
    const entry = 'signal_type: metrics\nname: up\nrate: 1\ngenerator: { type: constant, value: 1 }\n';
    const metadata = 'scenario_name: cpu-spike\ncategory: infrastructure\ndescription: CPU spikes\n';
    for (const top of ['', 'version: 2\n']) {
      const file = load(`${top}${metadata}${entry}`);
      expect(file, top).to.include({ name: 'cpu-spike', description: 'CPU spikes', category: 'infrastructure' });
      expect(file.scenarios.map((e) => e.name)).to.deep.equal(['up']);
    }
    expect(problems(`scenario_name: "a b"\ncategory: ""\n${entry}`)).to.deep.equal([
      'scenario_name: expected a name matching [a-zA-Z0-9_][a-zA-Z0-9_.-]*, got "a b"',
      'category: expected a non-empty string, got ""',
    ]);
  });

  it('keeps category and tags of a pack file', () => {
    const pack = loadPack(
      'version: 2\nkind: composable\nname: p\ndescription: d\ncategory: infrastructure\ntags: [linux]\nmetrics: [{ name: up }]\n',
      { origin: 'p.yaml' },
    );
    expect(pack).to.include({ category: 'infrastructure' });
    expect(pack.tags).to.deep.equal(['linux']);
  });
});

describe('svc catalog list --kind and --tag', () => {
  const dir = directory({
    'flap.yaml': `version: 2\nkind: runnable\nscenario_name: link-flap\ncategory: network\ntags: [snmp, flap]\nscenarios:\n${ENTRY}\n`,
    'leak.yaml': `version: 2\nkind: runnable\ndescription: memory leak\ntags: [memory]\nscenarios:\n${ENTRY}\n`,
    'spike.yaml':
      'scenario_name: cpu-spike\ncategory: infrastructure\ndescription: CPU spikes\nname: up\nrate: 1\ngenerator: { type: constant, value: 1 }\n',
    'snmp.yaml':
      'version: 2\nkind: composable\nname: snmp_extra\ndescription: d\ncategory: network\ntags: [snmp]\nmetrics: [{ name: up }]\n',
  });

  const names = async (...flags: string[]) => {
    const result = await svc(['catalog', 'list', '--catalog', dir, '--json', ...flags]);
    expect(result.code, result.stderr).to.equal(0);
    return (JSON.parse(result.stdout).items as { name: string }[]).map((item) => item.name);
  };

  it('lists category and tags in --json', async () => {
    const result = await svc(['catalog', 'list', '--catalog', dir, '--json']);
    const flap = JSON.parse(result.stdout).items.find((item: { name: string }) => item.name === 'link-flap');
    expect(flap).to.include({ category: 'network', kind: 'runnable' });
    expect(flap.tags).to.deep.equal(['snmp', 'flap']);
  });

  it('names and describes a single entry by its scenario_name and description', async () => {
    const result = await svc(['catalog', 'list', '--catalog', dir, '--json']);
    const spike = JSON.parse(result.stdout).items.find((item: { name: string }) => item.name === 'cpu-spike');
    expect(spike).to.include({ description: 'CPU spikes', category: 'infrastructure', kind: 'runnable' });
  });

  it('filters by kind, by tag (every --tag given), and by both', async () => {
    expect(await names('--kind', 'runnable')).to.deep.equal(['cpu-spike', 'leak', 'link-flap']);
    expect(await names('--tag', 'snmp')).to.deep.equal(['link-flap', 'snmp_extra']);
    expect(await names('--tag', 'snmp', '--tag', 'flap')).to.deep.equal(['link-flap']);
    expect(await names('--kind', 'pack', '--tag', 'snmp')).to.deep.equal(['snmp_extra']);
    const table = await svc(['catalog', 'list', '--catalog', dir, '--kind', 'pack']);
    expect(
      lines(table.stdout)
        .slice(1)
        .map((row) => row.split(/ +/)[0]),
    ).to.deep.equal(['snmp_extra', 'node_cpu', 'node_memory', 'snmp_interface', 'http_server']);
  });

  it('each example of svc help catalog list lists an item of examples/catalog', async () => {
    const examples = [...(await svc(['help', 'catalog', 'list'])).stdout.matchAll(/^ +\$ svc (catalog list .*)$/gm)];
    expect(examples).to.have.length.greaterThan(2);
    for (const [, example] of examples) {
      const result = await svc([...example!.split(' '), '--json'].filter((arg, i, all) => all.indexOf(arg) === i));
      expect(result.code, example).to.equal(0);
      const sources = (JSON.parse(result.stdout).items as { source: string }[]).map((item) => item.source);
      expect(sources, example).to.satisfy((all: string[]) =>
        all.some((source) => source.startsWith('examples/catalog/')),
      );
    }
  });

  it("answers to the reference tool's names, svc list and svc show, its global flags before them", async () => {
    const list = await svc(['catalog', 'list', '--catalog', dir, '--json']);
    expect(await svc(['--catalog', dir, 'list', '--json'])).to.deep.equal(list);
    const show = await svc(['catalog', 'show', '@cpu-spike', '--catalog', dir]);
    expect(show.stdout).to.include('scenario_name: cpu-spike');
    expect(await svc(['--catalog', dir, 'show', '@cpu-spike'])).to.deep.equal(show);
    const refused = await svc(['list', '--catalog', dir, '--frob']);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('unknown flag --frob for svc list (svc list --help lists its flags)');
  });

  it('refuses an unknown kind, exit 2', async () => {
    const result = await svc(['catalog', 'list', '--catalog', dir, '--kind', 'scenario']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('--kind: expected one of runnable, composable, pack, invalid, got "scenario"');
  });
});
