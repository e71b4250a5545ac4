import { expect } from 'chai';
import { DEGRADED_AFTER_MS, EntryStats } from '../../lib/runtime/stats.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const down = new Error('tcp sink: connection refused');

describe('EntryStats: delivery health', () => {
  it('counts written events (buffered included) without moving last_successful_write_at', () => {
    const stats = new EntryStats(T0);
    stats.record({ kind: 'written', size: 10, bytes: 100 }, T0 + 1);
    expect(stats.snapshot(T0 + 1)).to.include({ total_events: 10, bytes_emitted: 100, last_successful_write_at: null });
    stats.record({ kind: 'delivered', size: 10, bytes: 100 }, T0 + 5);
    expect(stats.snapshot(T0 + 5).last_successful_write_at).to.equal(new Date(T0 + 5).toISOString());
  });

  it('holds what was written and neither delivered nor given up: what a stop signal during the flush loses', () => {
    const stats = new EntryStats(T0);
    stats.record({ kind: 'written', size: 10, bytes: 100 }, T0 + 1);
    expect(stats.heldEvents()).to.equal(10);
    stats.record({ kind: 'delivered', size: 4, bytes: 40 }, T0 + 2);
    stats.record({ kind: 'failed', size: 2, bytes: 20, error: down }, T0 + 3);
    expect(stats.heldEvents()).to.equal(4);
    stats.record({ kind: 'dropped', size: 4, bytes: 40 }, T0 + 4);
    expect(stats.heldEvents()).to.equal(0);
  });

  it('counts events dropped with no failure (the reader of stdout gone) in dropped_events only', () => {
    const stats = new EntryStats(T0);
    stats.record({ kind: 'written', size: 5, bytes: 50 }, T0 + 1);
    stats.record({ kind: 'dropped', size: 5, bytes: 50 }, T0 + 2);
    expect(stats.snapshot(T0 + 2)).to.include({
      total_events: 5,
      dropped_events: 5,
      errors: 0,
      total_sink_failures: 0,
      consecutive_failures: 0,
      last_sink_error: null,
    });
  });

  it('counts failures and retries; the next acknowledgement resets consecutive_failures only', () => {
    const stats = new EntryStats(T0);
    stats.record({ kind: 'retrying', attempt: 1, delay: 50, error: down }, T0 + 1);
    stats.record({ kind: 'failed', size: 3, bytes: 30, error: down }, T0 + 2);
    stats.record({ kind: 'failed', size: 3, bytes: 30, error: down }, T0 + 3);
    expect(stats.snapshot(T0 + 3)).to.include({
      errors: 2,
      consecutive_failures: 2,
      total_sink_failures: 2,
      sink_retries: 1,
      last_sink_error: down.message,
    });
    stats.record({ kind: 'delivered', size: 1, bytes: 10 }, T0 + 4);
    expect(stats.snapshot(T0 + 4)).to.include({
      consecutive_failures: 0,
      total_sink_failures: 2,
      last_sink_error: down.message,
    });
  });

  it('degraded: sink failures and no delivery for 30 s, by the time passed in', () => {
    const stats = new EntryStats(T0);
    expect(stats.degraded(T0 + 10 * DEGRADED_AFTER_MS), 'no failure, never degraded').to.equal(false);
    stats.record({ kind: 'failed', size: 1, bytes: 1, error: down }, T0 + 1000);
    // Nothing ever delivered: counted from the start.
    expect(stats.degraded(T0 + 29_999)).to.equal(false);
    expect(stats.degraded(T0 + 30_000)).to.equal(true);
    stats.record({ kind: 'delivered', size: 1, bytes: 1 }, T0 + 40_000);
    expect(stats.degraded(T0 + 40_000)).to.equal(false);
    expect(stats.degraded(T0 + 69_999)).to.equal(false);
    expect(stats.snapshot(T0 + 70_000).degraded).to.equal(true);
  });
});

describe('EntryStats: current_rate', () => {
  /** The stats of an entry writing one event every 1000/`perSecond` ms from T0 (its first tick at once), read at `at`. */
  function steady(perSecond: number, until: number): EntryStats {
    const stats = new EntryStats(T0);
    for (let at = 0; at <= until; at += 1000 / perSecond)
      stats.record({ kind: 'written', size: 1, bytes: 10 }, T0 + at);
    return stats;
  }

  it('reads the rate of a steady entry from its first second on: 2/s reads 2/s at 1 s', () => {
    expect(steady(2, 1000).currentRate(T0 + 1000)).to.equal(2);
    expect(steady(2, 1500).currentRate(T0 + 1500)).to.equal(2);
    expect(steady(10, 3000).currentRate(T0 + 3000)).to.equal(10);
    expect(steady(0.5, 10_000).currentRate(T0 + 10_000)).to.equal(0.5);
  });

  it('reads the rate of the last 5 s through a long run, however often the entry writes', () => {
    for (const perSecond of [1, 4, 40, 1000]) {
      const stats = steady(perSecond, 60_000);
      expect(stats.currentRate(T0 + 60_000), `${perSecond}/s`).to.be.closeTo(perSecond, perSecond * 1e-9);
    }
    // 10/s for 60 s, then 1/s for 10 s: only the last 5 s (and the sample before them) count.
    const stats = steady(10, 60_000);
    for (let at = 61_000; at <= 70_000; at += 1000) stats.record({ kind: 'written', size: 1, bytes: 10 }, T0 + at);
    expect(stats.currentRate(T0 + 70_000)).to.equal(1);
  });

  it('is 0 before a second write shows a rate, and falls to 0 once writes stop', () => {
    const stats = new EntryStats(T0);
    expect(stats.currentRate(T0 + 500)).to.equal(0);
    stats.record({ kind: 'written', size: 1, bytes: 10 }, T0 + 500);
    expect(stats.currentRate(T0 + 600)).to.equal(0);
    const stopped = steady(4, 2000);
    expect(stopped.currentRate(T0 + 2000)).to.equal(4);
    expect(stopped.currentRate(T0 + 4000)).to.be.within(0, 4);
    expect(stopped.currentRate(T0 + 10_000)).to.equal(0);
  });
});
