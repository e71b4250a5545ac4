import { runEntry } from '../lib/runtime/run-entry.js';
import { startKafkaMock } from '../spec/support/backends/kafka.js';
const cluster = await startKafkaMock();
const started = performance.now();
const run = runEntry({ id: 'b', signal_type: 'metrics', name: 'b', rate: 1e9, duration: 3000, start_time: { kind: 'now' }, generator: { type: 'step', start: 0, step_size: 1 }, encoder: { type: 'metrics_text' }, sink: { type: 'broker', brokers: [cluster.bootstrap], topic: 'p' } as any, labels: { host: 'bench-1' }, dynamic_labels: [{ key: 'pod', form: 'counter', prefix: 'pod_', cardinality: 1000 }], jitter_seed: 0, on_sink_error: 'fail', metric_type: 'gauge', cardinality_spikes: [] } as any);
await run.done;
console.log(Math.round(run.stats.totalEvents / ((performance.now() - started) / 1000)));
await cluster.stop();
