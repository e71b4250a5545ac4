/**
 * Rules across the entries of one file: their ids (explicit ones unique), `after` and `while` pointing at
 * another entry's generator, and `exemplars.from` and `trace_context.from` at a traces entry.
 */
import { entryId } from './entry.js';
import type { EntryFields } from './entry-fields.js';
import { show, type Issue } from '../language/problems.js';
import { spanKindsByService, spanServices } from '../language/traces.js';
import { REQUEST_SPAN_KINDS } from '../../operators/model/span.js';

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
  const add = (index: number, path: Issue['path'], message: string): void =>
    void found.push({ index, issue: { path, message } });
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
  const cycles = new Map(referenceCycles(entries, byId).map((cycle) => [cycle[0]!, cycle]));
  entries.forEach((fields, i) => {
    for (const link of LINKS) {
      const ref = fields[link.field]?.ref;
      if (ref === undefined) continue;
      const at = [link.field, 'ref'];
      const sharing = unnamed.get(ref) ?? [];
      const named = byId.get(ref);
      if (sharing.length > 1 && named !== undefined && entries[named]!.id === undefined) {
        const generated = sharing.map((j) => show(ids[j]!)).join(', ');
        add(
          i,
          at,
          `${show(ref)} is the name of ${sharing.length} entries without an id (${sharing.map((j) => places[j]).join(', ')}): give the entry to ${link.verb} an id, or use its generated id (${generated})`,
        );
        continue;
      }
      const target = byId.get(ref);
      if (target === undefined) {
        if (expandingEntryOf(entries, byId, ref) === undefined) add(i, at, `no entry has id ${show(ref)}`);
        continue;
      }
      if (target === i) {
        add(i, at, link.self);
        continue;
      }
      const watched = entries[target]!;
      if (watched.pack !== undefined && !watched.generator) {
        add(i, at, `${show(ref)} is a pack entry: name one of its metrics, as ${show(`${ref}.<metric name>`)}`);
      } else if (watched.signal_type !== undefined && (watched.signal_type !== 'metrics' || !watched.generator)) {
        add(i, at, `${show(ref)} has no generator to watch (${link.field} needs a metrics entry with a generator)`);
      }
    }
    for (const field of SPAN_LINKS) {
      const ref = fields[field]?.from;
      if (ref === undefined) continue;
      const target = byId.get(ref);
      if (target === undefined) add(i, [field, 'from'], `no entry has id ${show(ref)}`);
      else if (entries[target]!.signal_type !== 'traces')
        add(i, [field, 'from'], `${show(ref)} is not a traces entry (${field} names the spans of one)`);
      else {
        const service = fields[field]!.service;
        const generator = entries[target]!.trace_generator;
        // An exemplar names a span of a sampled trace only (operators/exemplars.ts), as an SDK's filter does.
        if (field === 'exemplars' && generator?.sampled === 0)
          add(
            i,
            [field, 'from'],
            `${show(ref)} marks no trace sampled (its trace_generator.sampled is false or 0), and exemplars name spans of sampled traces only: this entry would carry none`,
          );
        const services = generator && spanServices(generator);
        if (service !== undefined && services && !services.has(service))
          add(
            i,
            [field, 'service'],
            `no span of ${show(ref)} runs in service ${show(service)} (its services: ${[...services].map(show).join(', ')})`,
          );
        else if (field === 'exemplars' && service !== undefined && generator) {
          // Exemplars name a request's span of the service (operators/exemplars.ts): one running only other kinds gets none.
          const serving = [...spanKindsByService(generator)]
            .filter(([, kinds]) => REQUEST_SPAN_KINDS.some((kind) => kinds.has(kind)))
            .map(([name]) => name);
          if (!serving.includes(service))
            add(
              i,
              [field, 'service'],
              `no ${REQUEST_SPAN_KINDS.join(' or ')} span of ${show(ref)} runs in service ${show(service)}, and exemplars name those (a request as the service served it): this entry would carry none (${serving.length ? `its services with some: ${serving.map(show).join(', ')}` : 'it has none'})`,
            );
        }
      }
    }
    const cycle = cycles.get(i);
    if (cycle) {
      const kinds = cycle.links.map((link) => link.field);
      const what = kinds.every((field) => field === 'after') ? 'wait' : 'reference (through after and while)';
      add(i, [cycle.links[0]!.field, 'ref'], `circular ${what}: ${[...cycle, i].map((j) => ids[j]).join(' → ')}`);
    }
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

/**
 * The pack or csv_replay entry whose expansion a ref such as `node.cpu` names, if any (compiling checks it
 * once expanded).
 */
function expandingEntryOf(
  entries: readonly EntryFields[],
  byId: ReadonlyMap<string, number>,
  ref: string,
): number | undefined {
  for (let dot = ref.indexOf('.'); dot > 0; dot = ref.indexOf('.', dot + 1)) {
    const index = byId.get(ref.slice(0, dot));
    if (index !== undefined && (entries[index]!.pack !== undefined || entries[index]!.generator?.type === 'csv_replay'))
      return index;
  }
  return undefined;
}

/** The fields by which an entry watches another one's values. */
interface Link {
  readonly field: 'after' | 'while';
  /** Completes "give the entry to … an id". */
  readonly verb: string;
  readonly self: string;
}
const LINKS: readonly Link[] = [
  { field: 'after', verb: 'wait for', self: 'an entry cannot wait for itself' },
  { field: 'while', verb: 'gate on', self: 'an entry cannot be gated on its own values' },
];

/** The fields by which an entry names the spans of a traces entry (no cycle: a traces entry has neither). */
const SPAN_LINKS = ['exemplars', 'trace_context'] as const;

/** A cycle of entries (each watching the next, the last the first) and the link each one follows. */
type Cycle = number[] & { links: Link[] };

/**
 * Circular references of two entries or more through `after` and `while`, each from its lowest
 * index: a depth-first walk reports each back edge it meets (every entry has at most two links).
 */
function referenceCycles(entries: readonly EntryFields[], byId: ReadonlyMap<string, number>): Cycle[] {
  const UNSEEN = 0;
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Array<number>(entries.length).fill(UNSEEN);
  const cycles: Cycle[] = [];
  const path: number[] = [];
  const followed: Link[] = [];
  const visit = (i: number): void => {
    state[i] = ON_PATH;
    path.push(i);
    for (const link of LINKS) {
      const next = byId.get(entries[i]![link.field]?.ref ?? '');
      if (next === undefined || next === i) continue;
      followed.push(link);
      if (state[next] === UNSEEN) visit(next);
      else if (state[next] === ON_PATH) {
        const from = path.indexOf(next);
        const members = path.slice(from);
        const links = followed.slice(from);
        const first = members.indexOf(Math.min(...members));
        cycles.push(
          Object.assign([...members.slice(first), ...members.slice(0, first)], {
            links: [...links.slice(first), ...links.slice(0, first)],
          }),
        );
      }
      followed.pop();
    }
    path.pop();
    state[i] = DONE;
  };
  entries.forEach((_, i) => {
    if (state[i] === UNSEEN) visit(i);
  });
  return cycles;
}
