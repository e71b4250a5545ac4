/**
 * What the drawers of a preview share beyond its types (the console's browser code reads this module too, so it
 * imports nothing).
 */

/** The name of a traces entry's series of failed spans over all spans, drawn on a 0–1 scale of its own. */
export const ERROR_RATIO = 'error ratio';

/** The points with a value and none on either side: a line joins no other point to them, so a drawer shows each. */
export function loneIndices(values: ArrayLike<number | null | undefined>): number[] {
  const lone: number[] = [];
  for (let i = 0; i < values.length; i++)
    if (values[i] != null && values[i - 1] == null && values[i + 1] == null) lone.push(i);
  return lone;
}
