import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module at `url`. A `.ts` module (run from source: development, specs, benchmarks) is
 * loaded through tsx, registered in the worker first, since Node 20's `--import` does not reach a worker's module
 * loading; a `.js` module (dist) is loaded as it is.
 */
export function moduleWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const load = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(load, { ...options, eval: true });
}
