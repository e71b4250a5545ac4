import { defer, map, type OperatorFunction } from 'rxjs';
import type { TickBatch } from './model/batch.js';
import { SpanWriter, type SpanBatch, type TraceGenerator } from './model/span.js';
import { check, checkList, withMethods } from './internal/arguments.js';

/**
 * Generator map for traces entries: every tick writes its trace (and the traces its consumers
 * start) into the batch's span columns, and names its range of them. Each subscription has its
 * own writer, sized like its last batch.
 *
 * ```
 * ticks:   0-------1-------2--|
 *          generateTraces(checkout tree)
 * traces:  a-------b-------c--|   a = spans 0–5 (frontend GET /checkout, cart, …), b = spans 6–11, …
 * ```
 */
export function generateTraces<B extends TickBatch>(generator: TraceGenerator): OperatorFunction<B, B & SpanBatch> {
  check('generateTraces', 'generator', generator, withMethods('trace'));
  checkList('generateTraces', 'generator.nodes', generator.nodes);
  return (source) =>
    defer(() => {
      const writer = new SpanWriter(generator.nodes);
      return source.pipe(
        map((batch) => {
          // Read once a batch: a load from the batch, whose shape differs with the operators before, is megamorphic.
          const { size, anchor, index, offset } = batch;
          const firstSpan = new Float64Array(size);
          const spanCount = new Float64Array(size);
          for (let i = 0; i < size; i++) {
            firstSpan[i] = writer.size;
            generator.trace(index[i]!, offset[i]!, writer, anchor);
            spanCount[i] = writer.size - firstSpan[i]!;
          }
          return { ...batch, spans: writer.finish(), firstSpan, spanCount };
        }),
      );
    });
}
