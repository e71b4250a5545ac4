/** Rules across the entries of one file: their ids (explicit ones unique), and `after` pointing at another entry's generator. */
import { entryId } from './entry.js';
import type { EntryFields } from './entry-fields.js';
import { show, type Issue } from '../language/problems.js';

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
    if (fields.id === undefined) return;
    const first = byId.get(fields.id);
    if (first === undefined) byId.set(fields.id, i);
    else add(i, ['id'], `duplicate id ${show(fields.id)} (also ${places[first]})`);
  });
  const ids = assignIds(entries);
  ids.forEach((id, i) => {
    if (id !== undefined && entries[i]!.id === undefined) byId.set(id, i);
  });
  const unnamed = entriesByName(entries);

  // Reported once, on the first entry of each cycle.
  const cycles = new Map(waitCycles(entries, byId).map((cycle) => [cycle[0]!, cycle]));
  entries.forEach((fields, i) => {
    if (!fields.after) return;
    const ref = fields.after.ref;
    const sharing = unnamed.get(ref) ?? [];
    const named = byId.get(ref);
    if (sharing.length > 1 && named !== undefined && entries[named]!.id === undefined) {
      const generated = sharing.map((j) => show(ids[j]!)).join(', ');
      return add(
        i,
        ['after', 'ref'],
        `${show(ref)} is the name of ${sharing.length} entries without an id (${sharing.map((j) => places[j]).join(', ')}): give the entry to wait for an id, or use its generated id (${generated})`,
      );
    }
    const target = byId.get(ref);
    if (target === undefined) {
      if (expandingEntryOf(entries, byId, ref) !== undefined) return;
      return add(i, ['after', 'ref'], `no entry has id ${show(ref)}`);
    }
    if (target === i) return add(i, ['after', 'ref'], 'an entry cannot wait for itself');
    const watched = entries[target]!;
    if (watched.pack !== undefined && !watched.generator) {
      add(i, ['after', 'ref'], `${show(ref)} is a pack entry: name one of its metrics, as ${show(`${ref}.<metric name>`)}`);
    } else if (watched.signal_type !== undefined && (watched.signal_type !== 'metrics' || !watched.generator)) {
      add(i, ['after', 'ref'], `${show(ref)} has no generator to watch (after needs a metrics entry with a generator)`);
    }
    const cycle = cycles.get(i);
    if (cycle) add(i, ['after', 'ref'], `circular wait: ${[...cycle, i].map((j) => ids[j]).join(' → ')}`);
  });
  return found;
}

/**
 * The id of each entry: its explicit `id`, else one generated from its `name` (or `pack`), made
 * unique in file order around the explicit ids: `cpu`, `cpu#2`, `cpu#3`. The same file always
 * gets the same ids.
 */
export function assignIds(entries: readonly EntryFields[]): (string | undefined)[] {
  const taken = new Set(entries.flatMap((fields) => (fields.id === undefined ? [] : [fields.id])));
  return entries.map((fields) => {
    if (fields.id !== undefined) return fields.id;
    const base = entryId(fields);
    if (base === undefined) return undefined;
    return claim(base, taken);
  });
}

/** `base`, else the first free `base#2`, `base#3`, ...; marked taken. */
export function claim(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
  taken.add(id);
  return id;
}

/** The entries without an id under each name (or pack) they go by. */
function entriesByName(entries: readonly EntryFields[]): Map<string, number[]> {
  const found = new Map<string, number[]>();
  entries.forEach((fields, i) => {
    const name = fields.id === undefined ? entryId(fields) : undefined;
    if (name !== undefined) found.set(name, [...(found.get(name) ?? []), i]);
  });
  return found;
}

/** The pack or csv_replay entry whose expansion a ref such as `node.cpu` names, if any (compiling checks it once expanded). */
function expandingEntryOf(entries: readonly EntryFields[], byId: ReadonlyMap<string, number>, ref: string): number | undefined {
  for (let dot = ref.indexOf('.'); dot > 0; dot = ref.indexOf('.', dot + 1)) {
    const index = byId.get(ref.slice(0, dot));
    if (index !== undefined && (entries[index]!.pack !== undefined || entries[index]!.generator?.type === 'csv_replay')) return index;
  }
  return undefined;
}

/**
 * Every circular wait of two entries or more, each from its lowest index in `after` order. Each
 * entry waits for at most one other, so one walk over the entries finds them all.
 */
function waitCycles(entries: readonly EntryFields[], byId: ReadonlyMap<string, number>): number[][] {
  const UNSEEN = 0;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Array<number>(entries.length).fill(UNSEEN);
  const cycles: number[][] = [];
  entries.forEach((_, start) => {
    const path: number[] = [];
    let next: number | undefined = start;
    for (; next !== undefined && state[next] === UNSEEN; next = byId.get(entries[next]!.after?.ref ?? '')) {
      state[next] = ON_PATH;
      path.push(next);
    }
    const cycle = next !== undefined && state[next] === ON_PATH ? path.slice(path.indexOf(next)) : [];
    if (cycle.length > 1) {
      const first = cycle.indexOf(Math.min(...cycle));
      cycles.push([...cycle.slice(first), ...cycle.slice(0, first)]);
    }
    for (const i of path) state[i] = DONE;
  });
  return cycles;
}
