/** Formats one sample value. */
export interface ValueFormat {
  (value: number): string;
  /**
   * Every finite value is written as `String(v)`, its shortest round-trip form: byte writers may
   * write it with `writeShortest` (./shortest.ts), which gives the same bytes without a string.
   */
  readonly shortest: boolean;
}

/**
 * Text form of sample values: shortest round-trip form (`1`, `0.5`, which is what `String`
 * gives), or exactly `precision` decimals; non-finite values as `+Inf`, `-Inf`, `NaN`.
 */
export function textValueFormat(precision?: number): ValueFormat {
  if (precision === undefined)
    return Object.assign((v: number) => (Number.isFinite(v) ? String(v) : nonFinite(v)), { shortest: true });
  checkPrecision(precision);
  return Object.assign((v: number) => (Number.isFinite(v) ? v.toFixed(precision) : nonFinite(v)), { shortest: false });
}

/**
 * JSON form of sample values: as {@link textValueFormat}, except that `+Inf`, `-Inf` and
 * `NaN`, which JSON numbers cannot express, are written as those strings (quoted).
 */
export function jsonValueFormat(precision?: number): ValueFormat {
  const text = textValueFormat(precision);
  return Object.assign((v: number) => (Number.isFinite(v) ? text(v) : `"${nonFinite(v)}"`), {
    shortest: text.shortest,
  });
}

function nonFinite(v: number): string {
  return v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
}

function checkPrecision(precision: number): void {
  // The range Number.prototype.toFixed accepts.
  if (!Number.isInteger(precision) || precision < 0 || precision > 100) {
    throw new RangeError(`precision must be an integer from 0 to 100, got ${precision}`);
  }
}
