import type { Shard } from '../../operators/labels.js';

/** The most shards a scenario may be split into (the chart's replicaCount has the same bound). */
export const MAX_SHARDS = 1000;

/**
 * `--shard ORDINAL/COUNT` (`SVC_SHARD`): this server emits only its share of every entry's series
 * (lib/runtime/file-run.ts says which); an Error naming the flag otherwise.
 */
export function parseShard(text: string): Shard {
  const [, ordinal, count] = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim()) ?? [];
  const index = Number(ordinal);
  const total = Number(count);
  if (ordinal === undefined || total < 1 || total > MAX_SHARDS || index >= total) {
    throw new Error(
      `--shard: expected ORDINAL/COUNT, whole numbers with ORDINAL below COUNT and COUNT from 1 to ${MAX_SHARDS} (a pod's index and the replica count), got "${text}"`,
    );
  }
  return { index, count: total };
}
