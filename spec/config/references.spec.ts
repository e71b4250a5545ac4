import { expect } from 'chai';
import { histogram, load, logs, metric, problems, v2 } from '../support/scenarios.js';

describe('ids and references between entries', () => {
  it('rejects duplicate ids, pointing at the first entry', () => {
    expect(problems(v2([metric({ id: 'x', name: 'a' }), metric({ id: 'x', name: 'b' })]))).to.deep.equal([
      'scenarios[1] (x): id: duplicate id "x" (also scenarios[0])',
    ]);
  });

  it('gives entries without an id that share a name distinct, stable ids: name, name#2, name#3', () => {
    const ids = () => load(v2([metric(), metric({ rate: 2 }), metric({ rate: 3 })])).scenarios.map((e) => e.id);
    expect(ids()).to.deep.equal(['cpu', 'cpu#2', 'cpu#3']);
    expect(ids()).to.deep.equal(['cpu', 'cpu#2', 'cpu#3']);
  });

  it('keeps explicit ids as written; a generated id steps around them', () => {
    expect(load(v2([metric(), metric({ id: 'cpu' })])).scenarios.map((e) => e.id)).to.deep.equal(['cpu#2', 'cpu']);
    expect(load(v2([metric({ id: 'cpu#2' }), metric(), metric()])).scenarios.map((e) => e.id)).to.deep.equal([
      'cpu#2',
      'cpu',
      'cpu#3',
    ]);
  });

  it('refuses an after.ref naming a name that several entries without an id share; their generated ids work', () => {
    const trigger = (ref: string) => ({ ref, op: '>', value: 0 });
    expect(problems(v2([metric(), metric(), metric({ id: 'alert', after: trigger('cpu') })]))).to.deep.equal([
      'scenarios[2] (alert): after.ref: "cpu" is the name of 2 entries without an id (scenarios[0], scenarios[1]): give the entry to wait for an id, or use its generated id ("cpu", "cpu#2")',
    ]);
    expect(
      load(v2([metric(), metric(), metric({ id: 'alert', after: trigger('cpu#2') })])).scenarios[2]!.after!.ref,
    ).to.equal('cpu#2');
  });

  it('accepts entries that share a name with distinct ids', () => {
    expect(load(v2([metric({ id: 'a' }), metric({ id: 'b' })])).scenarios.map((e) => e.id)).to.deep.equal(['a', 'b']);
  });

  describe('after', () => {
    const trigger = (ref: string, extra: Record<string, unknown> = {}) => ({ ref, op: '>', value: 80, ...extra });

    it('keeps ref, op, value and delay (ms)', () => {
      const file = load(v2([metric({ id: 'cpu' }), metric({ id: 'alert', after: trigger('cpu', { delay: '5s' }) })]));
      expect(file.scenarios[1]!.after).to.deep.equal({ ref: 'cpu', op: '>', value: 80, delay: 5_000 });
    });

    it('checks op, value and the required fields', () => {
      expect(
        problems(v2([metric({ id: 'a' }), metric({ id: 'b', after: { ref: 'a', op: '>=', value: '1' } })])),
      ).to.deep.equal([
        'scenarios[1] (b): after.op: expected one of <, >, got ">="',
        'scenarios[1] (b): after.value: invalid type: expected a number, got string "1"',
      ]);
      expect(problems(v2([metric({ id: 'a' }), metric({ id: 'b', after: { ref: 'a' } })]))).to.deep.equal([
        'scenarios[1] (b): after.op: missing required field (allowed: <, >)',
        'scenarios[1] (b): after.value: missing required field',
      ]);
    });

    it('must name another entry', () => {
      expect(problems(v2([metric({ id: 'a' }), metric({ id: 'b', after: trigger('nope') })]))).to.deep.equal([
        'scenarios[1] (b): after.ref: no entry has id "nope"',
      ]);
      expect(problems(v2([metric({ id: 'a', after: trigger('a') })]))).to.deep.equal([
        'scenarios[0] (a): after.ref: an entry cannot wait for itself',
      ]);
    });

    it('must name an entry with a generator', () => {
      expect(
        problems(
          v2([
            logs({ id: 'l' }),
            histogram({ id: 'h' }),
            metric({ after: trigger('l') }),
            metric({ id: 'm2', after: trigger('h') }),
          ]),
        ),
      ).to.deep.equal([
        'scenarios[2] (cpu): after.ref: "l" has no generator to watch (after needs a metrics entry with a generator)',
        'scenarios[3] (m2): after.ref: "h" has no generator to watch (after needs a metrics entry with a generator)',
      ]);
    });

    it('rejects a circular wait once', () => {
      expect(
        problems(
          v2([
            metric({ id: 'a', after: trigger('b') }),
            metric({ id: 'b', after: trigger('c') }),
            metric({ id: 'c', after: trigger('a') }),
          ]),
        ),
      ).to.deep.equal(['scenarios[0] (a): after.ref: circular wait: a → b → c → a']);
    });

    it('in a flat entry can only fail', () => {
      expect(problems(metric({ after: trigger('x') }))).to.deep.equal(['entry (cpu): after.ref: no entry has id "x"']);
    });
  });

  describe('while', () => {
    const gate = (ref: string, extra: Record<string, unknown> = {}) => ({ ref, op: '<', value: 1, ...extra });

    it('keeps ref, op, value, delay (ms) and snap_to', () => {
      const file = load(
        v2([
          metric({ id: 'link' }),
          metric({ id: 'drops', while: gate('link', { delay: { open: '5s', close: '1m' }, snap_to: 0 }) }),
        ]),
      );
      expect(file.scenarios[1]!.while).to.deep.equal({
        ref: 'link',
        op: '<',
        value: 1,
        delay: { open: 5_000, close: 60_000 },
        snap_to: 0,
      });
    });

    it("takes the reference tool's delay beside while, close as a duration or {duration, snap_to, stale_marker: false}", () => {
      const gated = (delay: unknown) =>
        load(v2([metric({ id: 'link' }), metric({ id: 'drops', while: gate('link'), delay })])).scenarios[1]!;
      expect(gated({ open: '250ms', close: '1s' }).while).to.deep.equal({
        ...gate('link'),
        delay: { open: 250, close: 1000 },
      });
      expect(gated({ close: { duration: '5s', snap_to: 1 } }).while).to.deep.equal({
        ...gate('link'),
        delay: { close: 5000 },
        snap_to: 1,
      });
      expect(gated({ open: '1s', close: { duration: '5s', stale_marker: false } }).while).to.deep.equal({
        ...gate('link'),
        delay: { open: 1000, close: 5000 },
      });
      expect(gated({ open: '1s' })).not.to.have.property('delay');
    });

    it('refuses the reference delay without while, beside while.delay, snap_to twice, and a staleness marker', () => {
      expect(
        problems(
          v2([
            metric({ id: 'a' }),
            metric({ id: 'b', delay: { open: '1s' } }),
            metric({ id: 'c', while: gate('a', { delay: { open: '1s' } }), delay: { close: '1s' } }),
            metric({ id: 'd', while: gate('a', { snap_to: 0 }), delay: { close: { duration: '1s', snap_to: 1 } } }),
            metric({ id: 'e', while: gate('a'), delay: { close: { duration: '1s', stale_marker: true } } }),
            metric({ id: 'f', while: gate('a'), delay: { close: 5 } }),
          ]),
        ),
      ).to.deep.equal([
        'scenarios[1] (b): delay: only allowed with while (the reference tool writes while.delay here)',
        'scenarios[2] (c): delay: the same as while.delay: give one of them',
        'scenarios[3] (d): delay.close.snap_to: the same as while.snap_to: give one of them',
        'scenarios[4] (e): delay.close.stale_marker: the Prometheus staleness marker on close is not built: give snap_to (a last sample) instead, or stale_marker: false',
        'scenarios[5] (f): delay.close: invalid type: expected a duration string or a mapping {duration, snap_to?, stale_marker?}, got number 5',
      ]);
    });

    it('checks op, value, delay and snap_to', () => {
      expect(
        problems(
          v2([
            metric({ id: 'a' }),
            metric({
              id: 'b',
              while: { ref: 'a', op: '=', value: 1, delay: { opening: '1s', close: 'x' }, snap_to: 'zero' },
            }),
          ]),
        ),
      ).to.deep.equal([
        'scenarios[1] (b): while.op: expected one of <, >, got "="',
        'scenarios[1] (b): while.delay.opening: unknown field (allowed: open, close)',
        'scenarios[1] (b): while.delay.close: expected a duration such as 500ms, 1.5s, 1m30s or 7d (units y, w, d, h, m, s, ms: largest first, each at most once), got "x"',
        'scenarios[1] (b): while.snap_to: invalid type: expected a number, got string "zero"',
      ]);
    });

    it('must name another metrics entry with a generator', () => {
      expect(problems(v2([metric({ id: 'a' }), metric({ id: 'b', while: gate('nope') })]))).to.deep.equal([
        'scenarios[1] (b): while.ref: no entry has id "nope"',
      ]);
      expect(problems(v2([metric({ id: 'a', while: gate('a') })]))).to.deep.equal([
        'scenarios[0] (a): while.ref: an entry cannot be gated on its own values',
      ]);
      expect(problems(v2([logs({ id: 'l' }), metric({ while: gate('l') })]))).to.deep.equal([
        'scenarios[1] (cpu): while.ref: "l" has no generator to watch (while needs a metrics entry with a generator)',
      ]);
    });

    it('may gate a logs entry, without snap_to', () => {
      expect(
        load(v2([metric({ id: 'link' }), logs({ id: 'l', while: gate('link') })])).scenarios[1]!.while!.ref,
      ).to.equal('link');
      expect(
        problems(v2([metric({ id: 'link' }), logs({ id: 'l', while: gate('link', { snap_to: 0 }) })])),
      ).to.deep.equal([
        'scenarios[1] (l): while.snap_to: not allowed on a logs entry (only metrics entries have a value to snap to)',
      ]);
    });

    it('rejects a cycle through while and after once, naming the path', () => {
      expect(
        problems(
          v2([
            metric({ id: 'a', while: gate('b') }),
            metric({ id: 'b', after: { ref: 'c', op: '>', value: 1 } }),
            metric({ id: 'c', while: gate('a') }),
          ]),
        ),
      ).to.deep.equal(['scenarios[0] (a): while.ref: circular reference (through after and while): a → b → c → a']);
      expect(
        problems(v2([metric({ id: 'a', while: gate('b') }), metric({ id: 'b', while: gate('a') })])),
      ).to.deep.equal(['scenarios[0] (a): while.ref: circular reference (through after and while): a → b → a']);
    });
  });
});
