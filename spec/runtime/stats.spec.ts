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

  it('counts failures and retries; the next acknowledgement resets consecutive_failures only', () => {
    const stats = new EntryStats(T0);
    stats.record({ kind: 'retrying', attempt: 1, delay: 50, error: down }, T0 + 1);
    stats.record({ kind: 'failed', size: 3, bytes: 30, error: down }, T0 + 2);
    stats.record({ kind: 'failed', size: 3, bytes: 30, error: down }, T0 + 3);
    expect(stats.snapshot(T0 + 3)).to.include({ errors: 2, consecutive_failures: 2, total_sink_failures: 2, sink_retries: 1, last_sink_error: down.message });
    stats.record({ kind: 'delivered', size: 1, bytes: 10 }, T0 + 4);
    expect(stats.snapshot(T0 + 4)).to.include({ consecutive_failures: 0, total_sink_failures: 2, last_sink_error: down.message });
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
