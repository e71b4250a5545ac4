import type { SinkConfig } from '../config/types.js';
import { redactText } from '../redact.js';
import { hostOf } from '../sinks/address.js';
import { sinkKindOf } from '../sinks/kinds/index.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|::1|0\.0\.0\.0)$/i;

/**
 * Advisory warnings about a sink: an address on a loopback host means the *server's* loopback,
 * not the caller's machine. Warnings never block.
 */
export function sinkWarnings(where: string, sink: SinkConfig): string[] {
  const address = sinkKindOf(sink.type)!.address;
  const addresses = address?.network ? (sink as unknown as Record<string, string | readonly string[]>)[address.field]! : [];
  return [addresses]
    .flat()
    .filter((one) => LOOPBACK.test(hostOf(one)))
    .map((one) => `${where}: sink address ${redactText(one)} is a loopback address: it reaches the svc-server host itself, not the caller's machine`);
}
