/**
 * Encoders and sinks that need a build feature (spec: `remote-write`, `otlp`, `kafka`). Their
 * transports are not part of this build yet, so referencing one is refused up front with the
 * feature's name rather than failing later.
 */
const FEATURES: Readonly<Record<string, string>> = {
  remote_write: 'remote-write',
  otlp: 'otlp',
  otlp_grpc: 'otlp',
  broker: 'kafka',
};

/** Why `type` cannot be used in this build, or undefined when it can. */
export function featureOf(type: string): string | undefined {
  const feature = FEATURES[type];
  return feature && `needs the build feature "${feature}", which this build does not include`;
}
