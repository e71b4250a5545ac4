/**
 * The backpressure wait of a sink that holds bytes: while it holds too much, `write` returns
 * `wait()` (one promise shared by every waiter); `release(hasRoom)` settles it once there is room.
 */
export class SpaceWait {
  private pending: { promise: Promise<void>; resolve: () => void } | undefined;

  wait(): Promise<void> {
    if (!this.pending) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.pending = { promise, resolve };
    }
    return this.pending.promise;
  }

  release(hasRoom: boolean): void {
    if (!this.pending || !hasRoom) return;
    const { resolve } = this.pending;
    this.pending = undefined;
    resolve();
  }
}
