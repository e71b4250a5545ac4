/**
 * The backpressure wait of a sink that holds bytes: while it holds too much, `write` returns
 * `wait()` (one promise shared by every waiter); `release(hasRoom)` settles it once there is
 * room, `fail(error)` rejects it when the destination failed for good.
 */
export class SpaceWait {
  private pending: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } | undefined;

  wait(): Promise<void> {
    if (!this.pending) {
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      this.pending = { promise, resolve, reject };
    }
    return this.pending.promise;
  }

  release(hasRoom: boolean): void {
    if (!this.pending || !hasRoom) return;
    const { resolve } = this.pending;
    this.pending = undefined;
    resolve();
  }

  fail(error: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}
