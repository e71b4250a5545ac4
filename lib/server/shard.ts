import type { Shard } from '../../operators/labels.js';

/** The most shards a scenario may be split into (the chart's replicaCount has the same bound). */
export const MAX_SHARDS = 1000;

/**
 * `--shard ORDINAL/COUNT` (`SVC_SHARD`): this server emits only its share of every entry's series
 * (lib/runtime/file-run.ts says which); an Error naming `setting`, the flag or the variable it came from, otherwise.
 */
export function parseShard(text: string, setting: '--shard' | 'SVC_SHARD' = '--shard'): Shard {
  const [, ordinal, count] = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim()) ?? [];
  const index = Number(ordinal);
  const total = Number(count);
  if (ordinal === undefined || total < 1 || total > MAX_SHARDS || index >= total) {
    // Kubernetes reads a missing pod label as empty: the chart's StatefulSet then gives SVC_SHARD "/COUNT".
    // A --shard flag was typed by someone, not filled in from a label.
    const emptyOrdinal =
      setting === 'SVC_SHARD' && /^\s*\/\d+\s*$/.test(text)
        ? ': ORDINAL is empty (on Kubernetes before 1.28 no pod has the label apps.kubernetes.io/pod-index it is read from)'
        : '';
    throw new Error(
      `${setting}: expected ORDINAL/COUNT, whole numbers with ORDINAL below COUNT and COUNT from 1 to ${MAX_SHARDS} (a pod's index and the replica count), got "${text}"${emptyOrdinal}`,
    );
  }
  return { index, count: total };
}
