import type { SinkConfig } from '../config/types.js';
import { redactText } from '../redact.js';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?|0\.0\.0\.0)$/i;

/**
 * Advisory warnings about a sink: an address on a loopback host means the *server's* loopback,
 * not the caller's machine. Warnings never block.
 */
export function sinkWarnings(where: string, sink: SinkConfig): string[] {
  const addresses = 'url' in sink ? [sink.url] : 'address' in sink ? [sink.address] : 'endpoint' in sink ? [sink.endpoint] : 'brokers' in sink ? sink.brokers : [];
  return addresses
    .filter((address) => LOOPBACK.test(hostOf(address)))
    .map((address) => `${where}: sink address ${redactText(address)} is a loopback address: it reaches the svc-server host itself, not the caller's machine`);
}

/** The host of a URL, or of `host:port` / `[v6]:port`. */
function hostOf(address: string): string {
  return address.includes('://') ? new URL(address).hostname : address.replace(/:\d+$/, '');
}
