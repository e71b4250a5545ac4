/**
 * The packs svc ships, written in the pack file shape (docs/packs.md) and validated by the same
 * decoder as pack files, the first time one is used. `pack: <name>` finds these before the catalog.
 *
 * Values are per tick: at `rate: 1` a step of 0.35 on a `_seconds_total` counter is 35 % of one CPU.
 */
import { decodePack } from '../config/pack.js';
import type { PackFile } from '../config/types.js';

const GIB = 1024 ** 3;

export const BUILTIN_PACK_DOCUMENTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  node_cpu: {
    version: 2,
    kind: 'composable',
    name: 'node_cpu',
    description: 'node_exporter CPU: per-mode CPU seconds of cpu 0, load averages and runnable processes',
    shared_labels: { job: 'node' },
    metrics: [
      {
        name: 'node_cpu_seconds_total',
        generator: { type: 'step', start: 0, step_size: 0.35 },
        labels: { cpu: '0', mode: 'user' },
        metric_type: 'counter',
        help: 'Seconds the CPUs spent in each mode.',
      },
      {
        name: 'node_cpu_guest_seconds_total',
        generator: { type: 'step', start: 0, step_size: 0.01 },
        labels: { cpu: '0', mode: 'user' },
        metric_type: 'counter',
        help: 'Seconds the CPUs spent in guests (VMs) for each mode.',
      },
      {
        name: 'node_load1',
        generator: { type: 'sine', amplitude: 0.6, period_secs: 300, offset: 1.2 },
        metric_type: 'gauge',
        help: '1m load average.',
      },
      {
        name: 'node_load5',
        generator: { type: 'sine', amplitude: 0.3, period_secs: 900, offset: 1.1 },
        metric_type: 'gauge',
        help: '5m load average.',
      },
      {
        name: 'node_load15',
        generator: { type: 'constant', value: 1 },
        metric_type: 'gauge',
        help: '15m load average.',
      },
      {
        name: 'node_procs_running',
        generator: { type: 'sequence', values: [2, 3, 2, 5, 4, 3], repeat: true },
        metric_type: 'gauge',
        help: 'Number of processes in runnable state.',
      },
    ],
  },
  node_memory: {
    version: 2,
    kind: 'composable',
    name: 'node_memory',
    description: 'node_exporter memory: an 8 GiB host whose available memory swings between 2 and 6 GiB',
    shared_labels: { job: 'node' },
    metrics: [
      {
        name: 'node_memory_MemTotal_bytes',
        generator: { type: 'constant', value: 8 * GIB },
        metric_type: 'gauge',
        help: 'Memory information field MemTotal_bytes.',
      },
      {
        name: 'node_memory_MemAvailable_bytes',
        generator: { type: 'sine', amplitude: 2 * GIB, period_secs: 600, offset: 4 * GIB },
        metric_type: 'gauge',
        help: 'Memory information field MemAvailable_bytes.',
      },
      {
        name: 'node_memory_MemFree_bytes',
        generator: { type: 'sine', amplitude: 1 * GIB, period_secs: 600, offset: 1.5 * GIB },
        metric_type: 'gauge',
        help: 'Memory information field MemFree_bytes.',
      },
      {
        name: 'node_memory_Cached_bytes',
        generator: { type: 'constant', value: 2 * GIB },
        metric_type: 'gauge',
        help: 'Memory information field Cached_bytes.',
      },
      {
        name: 'node_memory_SwapTotal_bytes',
        generator: { type: 'constant', value: 2 * GIB },
        metric_type: 'gauge',
        help: 'Memory information field SwapTotal_bytes.',
      },
      {
        name: 'node_memory_SwapFree_bytes',
        generator: { type: 'constant', value: 2 * GIB },
        metric_type: 'gauge',
        help: 'Memory information field SwapFree_bytes.',
      },
    ],
  },
  snmp_interface: {
    version: 2,
    kind: 'composable',
    name: 'snmp_interface',
    description:
      'SNMP IF-MIB network interface (snmp_exporter names): traffic and error counters, status and speed of one port',
    shared_labels: { job: 'snmp', ifIndex: '1', ifName: 'eth0', ifDescr: 'eth0' },
    metrics: [
      {
        name: 'ifHCInOctets',
        generator: { type: 'step', start: 0, step_size: 1_250_000 },
        metric_type: 'counter',
        help: 'The total number of octets received on the interface, including framing characters.',
      },
      {
        name: 'ifHCOutOctets',
        generator: { type: 'step', start: 0, step_size: 625_000 },
        metric_type: 'counter',
        help: 'The total number of octets transmitted out of the interface, including framing characters.',
      },
      {
        name: 'ifInErrors',
        generator: { type: 'step', start: 0, step_size: 0 },
        metric_type: 'counter',
        help: 'The number of inbound packets that contained errors.',
      },
      {
        name: 'ifOutErrors',
        generator: { type: 'step', start: 0, step_size: 0 },
        metric_type: 'counter',
        help: 'The number of outbound packets that could not be transmitted because of errors.',
      },
      {
        name: 'ifOperStatus',
        generator: { type: 'constant', value: 1 },
        metric_type: 'gauge',
        help: 'The current operational state of the interface (1 up, 2 down).',
      },
      {
        name: 'ifHighSpeed',
        generator: { type: 'constant', value: 1000 },
        metric_type: 'gauge',
        help: "An estimate of the interface's current bandwidth in units of 1,000,000 bits per second.",
      },
    ],
  },
  http_server: {
    version: 2,
    kind: 'composable',
    name: 'http_server',
    description: 'HTTP server RED metrics: requests, server errors, latency quantiles and in-flight requests',
    shared_labels: { job: 'http' },
    metrics: [
      {
        name: 'http_requests_total',
        generator: { type: 'step', start: 0, step_size: 25 },
        labels: { code: '200' },
        metric_type: 'counter',
        help: 'Total HTTP requests served.',
      },
      {
        name: 'http_request_errors_total',
        generator: { type: 'step', start: 0, step_size: 0.25 },
        labels: { code: '500' },
        metric_type: 'counter',
        help: 'Total HTTP requests answered with a server error.',
      },
      {
        name: 'http_request_duration_p50_seconds',
        generator: { type: 'sine', amplitude: 0.01, period_secs: 120, offset: 0.045 },
        metric_type: 'gauge',
        help: 'Median request latency.',
      },
      {
        name: 'http_request_duration_p99_seconds',
        generator: { type: 'sine', amplitude: 0.08, period_secs: 120, offset: 0.25 },
        metric_type: 'gauge',
        help: '99th percentile request latency.',
      },
      {
        name: 'http_requests_in_flight',
        generator: { type: 'sequence', values: [3, 4, 6, 5, 4, 2], repeat: true },
        metric_type: 'gauge',
        help: 'Requests being served.',
      },
    ],
  },
};

const decoded = new Map<string, PackFile>();

/** The built-in pack named `name`, validated once. */
export function builtinPack(name: string): PackFile | undefined {
  if (!Object.hasOwn(BUILTIN_PACK_DOCUMENTS, name)) return undefined;
  let pack = decoded.get(name);
  if (!pack) decoded.set(name, (pack = decodePack(BUILTIN_PACK_DOCUMENTS[name], `built-in pack ${name}`)));
  return pack;
}

export function builtinPackNames(): string[] {
  return Object.keys(BUILTIN_PACK_DOCUMENTS);
}

/**
 * The reference tool's built-in packs, by the name its files write, and the built-in pack of svc
 * that models the same source (none for kube-state-metrics). Its metrics and ids differ, so the
 * name is not taken as an alias: an unknown pack of these names says which one to write instead.
 */
export const REFERENCE_PACKS: Readonly<Record<string, string | undefined>> = {
  telegraf_snmp_interface: 'snmp_interface',
  node_exporter_cpu: 'node_cpu',
  node_exporter_memory: 'node_memory',
  http_server_red: 'http_server',
  kube_state_metrics: undefined,
};
