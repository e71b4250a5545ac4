import { expect } from 'chai';
import { map } from 'rxjs';
import { gate, snapTo } from '../../operators/gate.js';
import type { SampleBatch } from '../../operators/model/batch.js';
import { sampleBatch } from '../support/batches.js';
import { virtualTime } from '../support/marbles.js';

/** Tick `x` carries the letter's position in the alphabet (a = 0) as its value and slot; S is a snapped sample (-1). */
const letters = 'abcdefghijklmnopqrstuvwxyz';
const ticks = Object.fromEntries([...letters].map((letter, n) => [letter, sampleBatch({ values: [n], offsets: [n] })]));
const named = { ...Object.fromEntries([...letters].map((letter, n) => [letter, n])), S: -1 };
const condition = { t: true, f: false };
const firstValue = map((batch: SampleBatch) => batch.value[0]!);

describe('gate', () => {
  it('passes ticks exactly while the condition holds, without delays', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const holds = hot('          -t---f---t------', condition);
      const source = cold('        a-b-c-d-e-f-g-h|', ticks);
      const expected = '           --b-c-----f-g-h|';
      expectObservable(source.pipe(gate(holds), firstValue)).toBe(expected, named);
      expectSubscriptions(holds.subscriptions).toBe('^--------------!');
    });
  });

  it('opens `open` ms after the condition starts holding and closes `close` ms after it stops; a flip back cancels the pending edge', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      // t@1 opens at 3; f@5 would close at 9 but t@7 cancels it; f@13 closes at 17; t@19 opens at 21.
      const holds = hot('          -t---f-t-----f-----t-----', condition);
      const source = cold('        a-b-c-d-e-f-g-h-i-j-k-l-m|', ticks);
      const expected = '           ----c-d-e-f-g-h-i-----l-m|';
      expectObservable(source.pipe(gate(holds, { open: 2, close: 4 }), firstValue)).toBe(expected, named);
    });
  });

  it("counts a delay from a reading's `since`: a reading that arrives late opens on time", () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      // Holding since 1, told at 3: with open 4 the gate opens at 5, not at 7.
      const holds = hot('          ---t----', { t: { holds: true, since: 1 } });
      const source = cold('        abcdefgh|', ticks);
      expectObservable(source.pipe(gate(holds, { open: 4 }), firstValue)).toBe('-----fgh|', named);
    });
  });

  it('judges a tick at the very instant of an edge by the edge, whichever of the two the scheduler runs first', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      // t@1 opens at 4 and f@5 closes at 8, the instants of ticks c and e. The ticks were scheduled when the source
      // was subscribed, the edges' timers later: at 4 and at 8 the tick runs first. c passes, e does not (its snap).
      const holds = hot('          -t---f--------', condition);
      const source = cold('        a-b-c-d-e-f-g|', ticks);
      expectObservable(source.pipe(gate(holds, { open: 3, close: 3, snap: snapTo(-1) }), firstValue)).toBe(
        '----c-d-S----|',
        named,
      );
    });
  });

  it('tells onEdge when the gate opens and closes, at the scheduler time it does', () => {
    const scheduler = virtualTime();
    const edges: [number, boolean][] = [];
    scheduler.run(({ cold, hot, expectObservable }) => {
      const holds = hot('          -t---f-t-----f-----t-----', condition);
      const source = cold('        a-b-c-d-e-f-g-h-i-j-k-l-m|', ticks);
      const onEdge = (open: boolean) => edges.push([scheduler.now(), open]);
      expectObservable(source.pipe(gate(holds, { open: 2, close: 4, onEdge }), firstValue)).toBe(
        '----c-d-e-f-g-h-i-----l-m|',
        named,
      );
    });
    // As the ticks show: open at 3, closed at 17, open again at 21; the cancelled close at 9 is not told.
    expect(edges).to.deep.equal([
      [3, true],
      [17, false],
      [21, true],
    ]);
  });

  it('never opens on a flicker shorter than `open`', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const holds = hot('          -t-f-t-f---', condition);
      const source = cold('        a-b-c-d-e-f|', ticks);
      expectObservable(source.pipe(gate(holds, { open: 3 }), firstValue)).toBe('-----------|', named);
    });
  });

  it('with snap, gives one last tick carrying the snap value at the first tick after the close', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const holds = hot('          -t---f-t-----f-----t-----', condition);
      const source = cold('        a-b-c-d-e-f-g-h-i-j-k-l-m|', ticks);
      const expected = '           ----c-d-e-f-g-h-i-S---l-m|';
      expectObservable(source.pipe(gate(holds, { open: 2, close: 4, snap: snapTo(-1) }), firstValue)).toBe(
        expected,
        named,
      );
    });
  });

  it('behaves as its TSDoc diagram draws: the snap is the slot of the first tick after the close', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const holds = hot('          f-t-------f-----t--f---|', condition);
      const source = cold('        a-b-c-d-e-f-g-h-i-j-k-l-m-|', ticks);
      const gated = source.pipe(gate(holds, { open: 4, close: 4, snap: snapTo(-1) }));
      expectObservable(gated.pipe(firstValue)).toBe('------d-e-f-g-S-----------|', named);
      expectObservable(gated.pipe(map((batch) => batch.offset[0]))).toBe('------d-e-f-g-h-----------|', named);
    });
  });

  it('snaps a batch of several ticks to its first tick only, keeping its slot and offset', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      const holds = hot('-t-f', condition);
      const source = cold('--a-b|', {
        a: sampleBatch({ values: [1], offsets: [2] }),
        b: sampleBatch({ values: [5, 6, 7], offsets: [4, 5, 6], firstIndex: 4 }),
      });
      const picked = source.pipe(
        gate(holds, { snap: snapTo(0) }),
        map((batch) => ({
          size: batch.size,
          index: [...batch.index],
          offset: [...batch.offset],
          value: [...batch.value],
        })),
      );
      expectObservable(picked).toBe('--a-b|', {
        a: { size: 1, index: [0], offset: [2], value: [1] },
        b: { size: 1, index: [4], offset: [4], value: [0] },
      });
    });
  });

  it('keeps its state per subscription: a re-subscription watches the condition anew', () => {
    virtualTime().run(({ cold, expectObservable, expectSubscriptions }) => {
      const holds = cold('         -t---f-', condition);
      const source = cold('        a-b-c-d|', ticks);
      const gated = source.pipe(gate(holds), firstValue);
      expectObservable(gated).toBe('--b-c--|', named);
      expectObservable(gated, '     --------^').toBe('----------b-c--|', named);
      expectSubscriptions(holds.subscriptions).toBe(['^------!', '--------^------!']);
    });
  });

  it('keeps its last state when the condition completes, and routes a condition error into the stream', () => {
    virtualTime().run(({ cold, hot, expectObservable }) => {
      expectObservable(cold('a-b-c|', ticks).pipe(gate(hot('-t|', condition)), firstValue)).toBe('--b-c|', named);
      const failing = hot('-t-#', condition, new Error('watched entry failed'));
      expectObservable(cold('a-b-c|', ticks).pipe(gate(failing), firstValue)).toBe(
        '--b#',
        named,
        new Error('watched entry failed'),
      );
    });
  });

  it("routes a throw of the caller's snap or onEdge into the stream, unsubscribing the condition and the source", () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const failed = new Error('snap failed');
      const holds = hot('          -t-f------', condition);
      const source = cold('        a-b-c-d-e|', ticks);
      const snap = (): SampleBatch => {
        throw failed;
      };
      expectObservable(source.pipe(gate(holds, { snap }), firstValue)).toBe('--b-#', named, failed);
      expectSubscriptions(holds.subscriptions).toBe('^---!');
      expectSubscriptions(source.subscriptions).toBe('^---!');

      const edgeFailed = new Error('onEdge failed');
      const onEdge = () => {
        throw edgeFailed;
      };
      const opens = hot('          -t--------', condition);
      const again = cold('         a-b-c-d-e|', ticks);
      expectObservable(again.pipe(gate(opens, { onEdge }), firstValue)).toBe('-#', named, edgeFailed);
      expectSubscriptions(opens.subscriptions).toBe('^!');
      expectSubscriptions(again.subscriptions).toBe('^!');
    });
  });

  it('errors the stream, naming what it must be, on a condition value that is neither a boolean nor a reading', () => {
    virtualTime().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const expected =
        'gate: each value of condition must be a boolean or a Reading {holds: boolean, since: scheduler time}';
      const numbers = hot('-x---', { x: 1 });
      const source = cold('a-b-c|', ticks);
      expectObservable(source.pipe(gate(numbers as never), firstValue)).toBe(
        '-#',
        named,
        new TypeError(`${expected}, got 1`),
      );
      expectSubscriptions(source.subscriptions).toBe('^!');
      const sinceless = hot('-x---', { x: { holds: true } });
      expectObservable(cold('a-b-c|', ticks).pipe(gate(sinceless as never, { open: 2 }), firstValue)).toBe(
        '-#',
        named,
        new RangeError(`${expected}, got {holds}`),
      );
    });
  });
});
