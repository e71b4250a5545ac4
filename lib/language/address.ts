/** A `host:port` destination, split; IPv6 literals lose their brackets. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
  /** The address as the user wrote it, for messages. */
  readonly text: string;
}

/**
 * The one `host:port` grammar (`[::1]:514` for IPv6): the scenario language (and its JSON Schema's pattern, where
 * the port's range is validation's), the sinks and the server's warnings read it.
 */
export const HOST_PORT_FORM = '(?:\\[([0-9A-Fa-f:.]+)\\]|([A-Za-z0-9._-]+)):(\\d{1,5})';
export const HOST_PORT_PATTERN = `^${HOST_PORT_FORM}$`;
const HOST_PORT = new RegExp(HOST_PORT_PATTERN);

/** `host:port` split, or undefined when `address` is not one (or its port is outside 1-65535). */
export function splitHostPort(address: string): HostPort | undefined {
  const match = HOST_PORT.exec(address);
  const port = Number(match?.[3]);
  return match && port >= 1 && port <= 65_535 ? { host: match[1] ?? match[2]!, port, text: address } : undefined;
}

/**
 * Splits `host:port`. The scenario language validated the form already; this throws a
 * RangeError for anything else (a library caller's mistake).
 */
export function parseHostPort(address: string): HostPort {
  const split = splitHostPort(address);
  if (!split) throw new RangeError(`expected host:port, got "${address}"`);
  return split;
}

/** The host an address names: a URL's host name (IPv6 without brackets), else the host of `host:port`. */
export function hostOf(address: string): string {
  if (address.includes('://')) return new URL(address).hostname.replace(/^\[(.*)\]$/, '$1');
  return splitHostPort(address)?.host ?? address;
}
