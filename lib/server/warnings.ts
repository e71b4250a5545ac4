import type { SinkConfig } from '../config/types.js';
import { redactText } from '../redact.js';
import { hostOf } from '../language/address.js';
import { sinkKindOf } from '../sinks/kinds/index.js';
import { isLoopback } from './loopback.js';

/**
 * Advisory warnings about a sink: an address on a loopback host means the *server's* loopback,
 * not the caller's machine; and what the sink kind itself warns about (SASL without TLS).
 * Warnings never block.
 */
export function sinkWarnings(where: string, sink: SinkConfig): string[] {
  const kind = sinkKindOf(sink.type)!;
  const address = kind.address;
  const addresses = address?.network
    ? (sink as unknown as Record<string, string | readonly string[]>)[address.field]!
    : [];
  const loopback = [addresses]
    .flat()
    // 0.0.0.0 as a destination is this host too.
    .filter((one) => isLoopback(hostOf(one)) || hostOf(one) === '0.0.0.0')
    .map(
      (one) =>
        `${where}: sink address ${redactText(one)} is a loopback address: it reaches the svc-server host itself, not the caller's machine`,
    );
  return [...loopback, ...(kind.warnings?.(sink) ?? []).map((warning) => `${where}: ${redactText(warning)}`)];
}
