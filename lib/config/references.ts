/** Rules across the entries of one file: unique ids, and `after` pointing at another entry's generator. */
import { entryId } from './entry.js';
import type { EntryFields } from './codecs.js';
import { show, type Issue } from './problems.js';

export interface EntryIssue {
  readonly index: number;
  readonly issue: Issue;
}

/**
 * `places[i]` names entry i in messages (`scenarios[0]`). A ref into the expansion of a pack entry
 * (`<pack entry id>.<metric>`) is left to lib/compile, which knows the pack's metrics and runs these
 * same checks again on the expanded entries.
 */
export function referenceIssues(entries: readonly EntryFields[], places: readonly string[]): EntryIssue[] {
  const found: EntryIssue[] = [];
  const add = (index: number, path: Issue['path'], message: string): void => void found.push({ index, issue: { path, message } });
  const byId = new Map<string, number>();
  entries.forEach((fields, i) => {
    const id = entryId(fields);
    if (id === undefined) return;
    const first = byId.get(id);
    if (first === undefined) byId.set(id, i);
    else add(i, ['id'], `duplicate id ${show(id)} (also ${places[first]})${fields.id === undefined ? '; set id to tell the entries apart' : ''}`);
  });

  entries.forEach((fields, i) => {
    if (!fields.after) return;
    const ref = fields.after.ref;
    const target = byId.get(ref);
    if (target === undefined) {
      if (packEntryOf(entries, byId, ref) !== undefined) return;
      return add(i, ['after', 'ref'], `no entry has id ${show(ref)}`);
    }
    if (target === i) return add(i, ['after', 'ref'], 'an entry cannot wait for itself');
    const watched = entries[target]!;
    if (watched.pack !== undefined && !watched.generator) {
      add(i, ['after', 'ref'], `${show(ref)} is a pack entry: name one of its metrics, as ${show(`${ref}.<metric name>`)}`);
    } else if (watched.signal_type !== undefined && (watched.signal_type !== 'metrics' || !watched.generator)) {
      add(i, ['after', 'ref'], `${show(ref)} has no generator to watch (after needs a metrics entry with a generator)`);
    }
    const cycle = waitCycle(entries, byId, i);
    // Reported once, on the first entry of the cycle.
    if (cycle && Math.min(...cycle) === i) {
      add(i, ['after', 'ref'], `circular wait: ${[...cycle, i].map((j) => entryId(entries[j]!)).join(' → ')}`);
    }
  });
  return found;
}

/** The pack entry whose expansion a ref such as `node.cpu` names, if any. */
function packEntryOf(entries: readonly EntryFields[], byId: ReadonlyMap<string, number>, ref: string): number | undefined {
  for (let dot = ref.indexOf('.'); dot > 0; dot = ref.indexOf('.', dot + 1)) {
    const index = byId.get(ref.slice(0, dot));
    if (index !== undefined && entries[index]!.pack !== undefined) return index;
  }
  return undefined;
}

/** The entries visited from `start` following `after.ref` back to `start`, or undefined when the chain ends. */
function waitCycle(entries: readonly EntryFields[], byId: ReadonlyMap<string, number>, start: number): number[] | undefined {
  const chain = new Set([start]);
  for (let next = byId.get(entries[start]!.after!.ref); next !== undefined; next = byId.get(entries[next]!.after?.ref ?? '')) {
    if (next === start) return [...chain];
    if (chain.has(next)) return undefined;
    chain.add(next);
  }
  return undefined;
}
