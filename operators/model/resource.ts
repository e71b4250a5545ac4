import { VERSION } from '../../lib/version.js';

/**
 * Resources: the service (and pod) a span was made by, which the metrics counted from its spans go under too
 * (series.ts), so both read it from here; and what every resource svc writes says of the SDK that wrote it.
 */

/** A span or resource attribute's value, typed as OTLP carries it (a whole number is an int). */
export type AttributeValue = string | number | boolean;

/** The resource of a span: its service's attributes (`service.name` first), the pod of the moment included. */
export interface SpanResource {
  readonly service: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** Of a pod's resource: the service's, which its pods share (no `k8s.pod.name`); absent: this is the service's. */
  readonly serviceResource?: SpanResource;
}

/**
 * What every OTLP resource svc writes says of the SDK that wrote it, whatever the signal (a span's service, the
 * sink's resource of metrics and logs): svc (not `opentelemetry`, which only the OpenTelemetry SDKs write), in
 * Node.js, and its version.
 */
export const TELEMETRY_SDK: Readonly<Record<string, string>> = {
  'telemetry.sdk.name': 'svc',
  'telemetry.sdk.language': 'nodejs',
  'telemetry.sdk.version': VERSION,
};
