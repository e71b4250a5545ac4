import { createSocket } from 'node:dgram';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { temporaryDirectory } from '../directories.js';
import { requireBinary } from './binaries.js';
import { startBackend, type Backend } from './child.js';
import { freeTcpPort, freeUdpPort, waitFor } from './ports.js';

/** One message as rsyslog parsed it (RFC 5424 fields, from its JSON template). */
export interface ParsedMessage {
  readonly pri: string;
  readonly timereported: string;
  readonly hostname: string;
  readonly app_name: string;
  readonly procid: string;
  readonly msgid: string;
  readonly structured_data: string;
  readonly msg: string;
}

/** A private rsyslogd (Debian `rsyslog`) listening on free 127.0.0.1 ports. */
export interface Rsyslog {
  readonly udpPort: number;
  readonly tcpPort: number;
  /** Every message received so far (readiness probes left out), in arrival order. */
  messages(): Promise<ParsedMessage[]>;
  /** Waits until at least `n` messages arrived; returns them all. */
  waitForMessages(n: number, timeoutMs?: number): Promise<ParsedMessage[]>;
  stop(): Promise<void>;
}

const PROBE_APP = 'svc-probe';
const FIELDS: readonly [string, string][] = [
  ['pri', 'pri'],
  ['timereported', 'timereported" dateFormat="rfc3339'],
  ['hostname', 'hostname'],
  ['app_name', 'app-name'],
  ['procid', 'procid'],
  ['msgid', 'msgid'],
  ['structured_data', 'structured-data'],
  ['msg', 'msg'],
];

/** The configuration: imudp and imtcp (both TCP framings auto-detected) into one JSON-lines file. */
function config(dir: string, udpPort: number, tcpPort: number): string {
  const properties = FIELDS.map(([out, name]) => `  property(outname="${out}" name="${name}" format="jsonf")`).join(
    '\n  constant(value=",")\n',
  );
  return `global(workDirectory="${dir}/work")
module(load="imudp")
module(load="imtcp")
template(name="svcjson" type="list") {
  constant(value="{")
${properties}
  constant(value="}\\n")
}
ruleset(name="svc") { action(type="omfile" file="${dir}/messages.json" template="svcjson") }
input(type="imudp" address="127.0.0.1" port="${udpPort}" ruleset="svc")
input(type="imtcp" address="127.0.0.1" port="${tcpPort}" ruleset="svc")
`;
}

/**
 * Starts rsyslogd in the foreground with its own configuration, PID file and work directory in
 * a temporary directory; ready once a probe message sent over each transport is in its output.
 * `stop` ends it by its PID and removes the directory.
 */
export async function startRsyslog(): Promise<Rsyslog> {
  const binary = requireBinary('rsyslogd', 'rsyslog');
  const dir = temporaryDirectory('svc-rsyslog-');
  await mkdir(join(dir, 'work'));
  const [udpPort, tcpPort] = await Promise.all([freeUdpPort(), freeTcpPort()]);
  const conf = join(dir, 'rsyslog.conf');
  await writeFile(conf, config(dir, udpPort, tcpPort));
  const backend: Backend = startBackend(binary, ['-n', '-f', conf, '-i', join(dir, 'rsyslogd.pid')]);

  const all = async (): Promise<ParsedMessage[]> => {
    const text = await readFile(join(dir, 'messages.json'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ParsedMessage);
  };
  const messages = async () => (await all()).filter((m) => m.app_name !== PROBE_APP);
  const stop = async (): Promise<void> => {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitFor(
      'rsyslogd to take a probe over TCP and UDP',
      async () => {
        await Promise.all([probeTcp(tcpPort), probeUdp(udpPort)]);
        const probes = (await all()).filter((m) => m.app_name === PROBE_APP);
        return probes.some((m) => m.msg === 'tcp') && probes.some((m) => m.msg === 'udp') ? true : undefined;
      },
      10_000,
      50,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${backend.output()}`);
  }

  return {
    udpPort,
    tcpPort,
    messages,
    waitForMessages: (n, timeoutMs = 10_000) =>
      waitFor(
        `${n} messages in rsyslog`,
        async () => {
          const got = await messages();
          return got.length >= n ? got : undefined;
        },
        timeoutMs,
      ),
    stop,
  };
}

const probe = (transport: string) => `<14>1 - - ${PROBE_APP} - - - ${transport}\n`;

function probeTcp(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(probe('tcp')));
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

function probeUdp(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.send(probe('udp').trimEnd(), port, '127.0.0.1', (error) => {
      socket.close();
      if (error) reject(error);
      else resolve();
    });
  });
}
