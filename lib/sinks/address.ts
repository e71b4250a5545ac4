/** A `host:port` destination, split; IPv6 literals lose their brackets. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
  /** The address as the user wrote it, for messages. */
  readonly text: string;
}

/**
 * Splits `host:port` (`[::1]:514` for IPv6). The scenario language validated the form
 * already; this throws a RangeError for anything else (a library caller's mistake).
 */
export function parseHostPort(address: string): HostPort {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65_535) throw new RangeError(`expected host:port, got "${address}"`);
  return { host: match[1] ?? match[2]!, port, text: address };
}
