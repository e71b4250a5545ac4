/**
 * svc-server (compiled with the bench, as the build compiles it) for bench/soak.ts, in a process started with `--expose-gc` and an IPC
 * channel: on the message `gc` it collects its garbage fully and answers `{heapUsed}`.
 */
import { runServer } from '../lib/server/main.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('bench/soak-server.ts needs node --expose-gc');
process.on('message', (message) => {
  if (message !== 'gc') return;
  collect();
  process.send!({ heapUsed: process.memoryUsage().heapUsed });
});
await runServer(process.argv.slice(2));
