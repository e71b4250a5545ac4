/** A number in decimal notation, as scenario files and exports write them: `-3`, `0.5`, `.5`, `1e6`. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * The number `text` writes in decimal notation, else undefined: `Number` alone also reads `0x10`, `0b1`, `Infinity`
 * and the empty text. It may be infinite when the digits overflow (`1e400`): callers that need a finite number say so.
 */
export function decimal(text: string): number | undefined {
  return DECIMAL.test(text) ? Number(text) : undefined;
}
