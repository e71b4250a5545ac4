type Listener<T extends unknown[]> = (...args: T) => void;

interface Hub {
  readonly errors: Set<Listener<[Error]>>;
  readonly drains: Set<Listener<[]>>;
}

const hubs = new WeakMap<NodeJS.WritableStream, Hub>();

/**
 * The `error` and `drain` events of a stream, with one listener of each on the stream however
 * many sinks share it (every stdout entry of a pack, every stdout scenario of the server, write
 * to process.stdout): no listener leak, no MaxListenersExceededWarning.
 */
export function streamEvents(stream: NodeJS.WritableStream) {
  let hub = hubs.get(stream);
  if (!hub) {
    const created: Hub = { errors: new Set(), drains: new Set() };
    stream.on('error', (error: Error) => {
      for (const listener of created.errors) listener(error);
    });
    stream.on('drain', () => wake(created));
    hubs.set(stream, (hub = created));
  }
  const found = hub;
  const { errors, drains } = found;
  return {
    /** Calls `listener` on every error until the returned function is called. */
    onError(listener: Listener<[Error]>): () => void {
      errors.add(listener);
      return () => errors.delete(listener);
    },
    /** Calls `listener` on the next drain, unless the returned function is called first. */
    onceDrain(listener: Listener<[]>): () => void {
      drains.add(listener);
      return () => drains.delete(listener);
    },
    /**
     * Calls the drain listeners now: a write on the stream ended and left it room. Sinks sharing a
     * stream that one of them keeps filling as it empties would otherwise wait for a drain that never
     * comes (an entry writing a shared file starved by another one's).
     */
    roomMade(): void {
      wake(found);
    },
  };
}

function wake({ drains }: Hub): void {
  // Called after every write that left room: most often no sink waits.
  if (drains.size === 0) return;
  const waiting = [...drains];
  drains.clear();
  for (const listener of waiting) listener();
}
