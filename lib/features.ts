/**
 * Build features (spec: `remote-write`, `otlp`, `kafka`). A sink or encoder kind that needs
 * one declares it (lib/sinks/kinds, lib/encoders/kinds); while its transport is not part of the
 * build, referencing the kind is refused up front with the feature's name rather than failing later.
 */
export function featureRefusal(feature: string): string {
  return `needs the build feature "${feature}", which this build does not include`;
}
