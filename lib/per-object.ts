/** `make`, made once per object and kept as long as the object lives: an encoder's bytes of a node or resource. */
export function perObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}

/**
 * {@link perObject} for series, except a transient one (a label set built for one tick, past interning): it is
 * never met again, so keeping its value would only cost a weak map entry at every event of a high-cardinality entry.
 */
export function perSeries<K extends { readonly transient?: boolean }, V>(make: (series: K) => V): (series: K) => V {
  const kept = perObject(make);
  return (series) => (series.transient ? make(series) : kept(series));
}

/**
 * {@link perSeries} of values that also depend on a `variant` which seldom changes (a start time, the length of a
 * timestamp field): `of(variant)` gives the values for it, kept until another variant comes.
 */
export function perSeriesOf<K extends { readonly transient?: boolean }, A, V>(
  make: (series: K, variant: A) => V,
): (variant: A) => (series: K) => V {
  let last: { readonly variant: A; readonly of: (series: K) => V } | undefined;
  return (variant) => {
    if (last?.variant !== variant) last = { variant, of: perSeries((series: K) => make(series, variant)) };
    return last.of;
  };
}

/**
 * `parts` joined in memory of their own, for bytes kept as long as their series: a small Buffer (`Buffer.from`,
 * `Buffer.concat`, protobufjs' `finish`) is a slice of an 8 KiB slab Node shares with the short-lived buffers made
 * after it, so one kept for good keeps its whole slab alive (`Buffer.alloc` takes no slab). One allocation, as
 * `Buffer.concat` makes.
 */
export function ownBytes(...parts: readonly Uint8Array[]): Buffer {
  const own = Buffer.alloc(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    own.set(part, at);
    at += part.length;
  }
  return own;
}
