import { of } from 'rxjs';
import { RateSchedule } from '../../operators/model/rate-schedule.js';
import { ticks } from '../../operators/ticks.js';
import { generate } from '../../operators/generate.js';
import { perTick, virtualTime } from '../support/marbles.js';

describe('generate', () => {
  it('maps every tick to its value at the tick frame', () => {
    virtualTime().run(({ expectObservable }) => {
      const source = of(RateSchedule.constant(100)).pipe(
        ticks({ duration: 30 }),
        generate((n, at) => n * 1000 + at),
        perTick((b, i) => b.value[i]),
      );
      expectObservable(source).toBe('a 9ms b 9ms c 9ms |', { a: 0, b: 1010, c: 2020 });
    });
  });
});
