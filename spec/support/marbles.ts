import { expect } from 'chai';
import { mergeMap, type Observable, type OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Labelled, SampleBatch, TickBatch } from '../../operators/model/batch.js';

/** A TestScheduler whose assertions are chai deep equality. */
export function virtualTime(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

/** Flattens batches into one notification per tick, carrying what `pick` reads of it. */
export function perTick<B extends TickBatch, T>(pick: (batch: B, i: number) => T): OperatorFunction<B, T> {
  return mergeMap((batch: B) => Array.from({ length: batch.size }, (_, i) => pick(batch, i)));
}

/** Runs `source` to completion in virtual time and returns every tick it emitted, in order. */
export function collect<B extends TickBatch, T>(source: Observable<B>, pick: (batch: B, i: number) => T): T[] {
  const out: T[] = [];
  virtualTime().run(({ flush }) => {
    source.pipe(perTick(pick)).subscribe((value) => out.push(value));
    flush();
  });
  return out;
}

/** Row `i` of a labelled sample batch as `suffix{labels} value`, the way exposition text reads it. */
export const sampleRow = (batch: Labelled<SampleBatch>, i: number): string =>
  `${batch.series[i]!.suffix ?? ''}{${batch.series[i]!.key}} ${batch.value[i]}`;
