/**
 * Clock groups: entries in one group share one start reference. Entries linked by `after`, or by the spans one names
 * of a traces entry (`exemplars.from`, `trace_context.from`), in either direction, transitively,
 * form a linked set that always lies in one group: the group one of them names, else `chain_<lowest id>`. Two
 * different groups named in one linked set, and entries of one group with different `start_time`s, are errors.
 */
import type { Issue } from '../language/problems.js';
import type { Entry } from '../config/types.js';
import type { StartTime } from '../language/types.js';
import { formatStartTime } from './format.js';

export interface ClockGroup {
  readonly name: string;
  /** True when svc named it (`chain_<lowest id>`) because entries are linked by `after` or by spans named. */
  readonly automatic: boolean;
  /** What links its entries, when they are linked: `after`, spans one names of another, or both. */
  readonly linkedBy?: readonly LinkKind[];
  /** Ids of its entries, in file order. */
  readonly members: readonly string[];
  /** The start_time every member has: the group's timestamps reference. */
  readonly start_time: StartTime;
}

/**
 * How one entry depends on another's timeline: `after` starts it at the other's crossing; `spans` names the spans
 * the other made at its own timestamps (an exemplar, a log record's trace context), which must be
 * those of the same instants.
 */
export type LinkKind = 'after' | 'spans';

/**
 * The entries `entry` is linked to, and by what. A traces entry's span metrics are not linked: they copy its
 * start_time, phase_offset, clock_group and after, so they already share its timeline, and a link would put the
 * traces entry alone in a group, which moves its spans by its phase_offset.
 */
function linksOf(entry: Entry): Link[] {
  const spans =
    entry.exemplars?.from !== undefined
      ? { ref: entry.exemplars.from, field: 'exemplars.from' }
      : entry.trace_context?.from !== undefined
        ? { ref: entry.trace_context.from, field: 'trace_context.from' }
        : undefined;
  return [
    ...(entry.after ? [{ ref: entry.after.ref, kind: 'after' as const, field: 'after.ref' }] : []),
    ...(spans ? [{ ...spans, kind: 'spans' as const }] : []),
  ];
}

/** One entry's link to another: the id it names, by what, in which field. */
interface Link {
  readonly ref: string;
  readonly kind: LinkKind;
  readonly field: string;
}

/** How a linked set's links read in messages: `after`, `the spans they name`, or both. */
export function describeLinks(kinds: readonly LinkKind[]): string {
  return kinds.map((kind) => (kind === 'after' ? 'after' : 'the spans they name')).join(' and ');
}

export interface GroupedEntries {
  /** The entries, with `clock_group` set on every member of a linked set. */
  readonly entries: readonly Entry[];
  readonly groups: readonly ClockGroup[];
  readonly issues: readonly { readonly index: number; readonly issue: Issue }[];
}

/** `labels[i]` names entry i in messages (`scenarios[0] (cpu)`). Every `after.ref` must name an entry. */
export function assignClockGroups(entries: readonly Entry[], labels: readonly string[]): GroupedEntries {
  const issues: { index: number; issue: Issue }[] = [];
  const byId = new Map(entries.map((entry, i) => [entry.id, i]));
  const links = entries.map(linksOf);

  // Linked sets: union-find over the links.
  const parent = entries.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const kindsOf = new Map<number, Set<LinkKind>>();
  const linked = new Set<number>();
  links.forEach((entryLinks, i) => {
    for (const { ref } of entryLinks) {
      linked.add(i);
      const target = byId.get(ref);
      if (target === undefined) continue;
      parent[root(i)] = root(target);
      linked.add(target);
    }
  });
  const sets = new Map<number, number[]>();
  links.forEach((entryLinks, i) => {
    if (!linked.has(i)) return;
    append(sets, root(i), i);
    const kinds = kindsOf.get(root(i)) ?? new Set<LinkKind>();
    for (const { kind } of entryLinks) kinds.add(kind);
    kindsOf.set(root(i), kinds);
  });

  /** The link through which entry i joined its set's group, as messages tell it. */
  const joinLink = (i: number): string => {
    const own = links[i]![0];
    if (own) return `its ${own.field} "${own.ref}"`;
    const j = links.findIndex((other) => other.some((link) => link.ref === entries[i]!.id));
    const link = links[j]!.find((candidate) => candidate.ref === entries[i]!.id)!;
    return `${link.field} of ${labels[j]}`;
  };
  const groupOf = entries.map((entry) => entry.clock_group);
  const automatic = new Set<string>();
  const linkKinds = new Map<string, LinkKind[]>();
  /** Per entry that joined a named group through a link, that link as messages tell it. */
  const joinedThrough = new Map<number, string>();
  for (const [at, members] of sets) {
    const kinds = [...kindsOf.get(at)!].sort();
    const named = members.filter((i) => entries[i]!.clock_group !== undefined);
    const first = named[0];
    const advice = 'name the same clock_group on both, or drop one';
    // A conflict is told once, on the entry whose link joins two groups, else on each member naming another group.
    const direct = members.flatMap((i) =>
      links[i]!.flatMap((link) => {
        const target = byId.get(link.ref);
        const [own, theirs] = [
          entries[i]!.clock_group,
          target === undefined ? undefined : entries[target]!.clock_group,
        ];
        return own !== undefined && theirs !== undefined && own !== theirs ? [{ i, target: target!, link }] : [];
      }),
    );
    for (const { i, target, link } of direct)
      issues.push({
        index: i,
        issue: {
          path: ['clock_group'],
          message:
            `"${entries[i]!.clock_group}", but ${labels[target]} that its ${link.field} names is in "${entries[target]!.clock_group}":` +
            ` entries linked by ${describeLinks([link.kind])} share one clock group: ${advice}`,
        },
      });
    if (direct.length === 0)
      for (const i of named) {
        if (entries[i]!.clock_group !== entries[first!]!.clock_group) {
          issues.push({
            index: i,
            issue: {
              path: ['clock_group'],
              message:
                `entries linked by ${describeLinks(kinds)} share one clock group, but this one names "${entries[i]!.clock_group}"` +
                ` and ${labels[first!]} names "${entries[first!]!.clock_group}": ${advice}`,
            },
          });
        }
      }
    const name =
      first === undefined ? `chain_${members.map((i) => entries[i]!.id).sort()[0]}` : entries[first]!.clock_group!;
    if (first === undefined) automatic.add(name);
    linkKinds.set(name, [...new Set([...(linkKinds.get(name) ?? []), ...kinds])].sort());
    if (first !== undefined)
      for (const i of members) if (entries[i]!.clock_group === undefined) joinedThrough.set(i, joinLink(i));
    for (const i of members) groupOf[i] = name;
  }
  const members = new Map<string, number[]>();
  groupOf.forEach((group, i) => {
    if (group !== undefined) append(members, group, i);
  });
  const groups: ClockGroup[] = [];
  for (const [name, indexes] of members) {
    const reference = entries[indexes[0]!]!.start_time;
    const linkedBy = linkKinds.get(name);
    /** Why entry i is held to the reference: linked to it by spans, or joined the group through a link. */
    const why = (i: number): string => {
      const kinds = root(i) === root(indexes[0]!) ? kindsOf.get(root(i)) : undefined;
      // An entry naming spans cannot keep a start_time of its own: it would name spans of other instants.
      if (kinds?.has('spans'))
        return ` (entries linked by ${describeLinks([...kinds].sort())} share one: a log record or an exemplar is stamped on the timeline of the spans it names)`;
      return joinedThrough.has(i) ? ` (it joined "${name}" through ${joinedThrough.get(i)})` : '';
    };
    for (const i of indexes.slice(1)) {
      if (!sameStartTime(entries[i]!.start_time, reference)) {
        issues.push({
          index: i,
          issue: {
            path: ['start_time'],
            message:
              `the entries of clock group "${name}" share one start-time reference: expected ${formatStartTime(reference)}` +
              ` as on ${labels[indexes[0]!]}, got ${formatStartTime(entries[i]!.start_time)}${why(i)}`,
          },
        });
      }
    }
    groups.push({
      name,
      automatic: automatic.has(name) && indexes.every((i) => entries[i]!.clock_group === undefined),
      ...(linkedBy && { linkedBy }),
      members: indexes.map((i) => entries[i]!.id),
      start_time: reference,
    });
  }

  return {
    entries: entries.map((entry, i) =>
      groupOf[i] === entry.clock_group ? entry : { ...entry, clock_group: groupOf[i]! },
    ),
    groups,
    issues,
  };
}

function sameStartTime(a: StartTime, b: StartTime): boolean {
  if (a.kind === 'absolute' && b.kind === 'absolute') return a.epochMs === b.epochMs;
  if (a.kind === 'relative' && b.kind === 'relative') return a.offsetMs === b.offsetMs;
  return a.kind === b.kind && a.kind === 'now';
}

/** Adds `value` to the list of `key` in `lists`, starting the list if there is none. */
function append<K>(lists: Map<K, number[]>, key: K, value: number): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}
