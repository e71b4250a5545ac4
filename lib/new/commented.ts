/**
 * Commented YAML for the scenario files `svc new` writes: mappings whose fields each say what they
 * do, with commented-out optional fields between them, built with the `yaml` Document API (so
 * values are quoted and escaped by the YAML writer, never by hand).
 */
import { Document, Pair, Scalar, YAMLMap, YAMLSeq, isCollection, isScalar, type Node } from 'yaml';
import { SCHEMA_MODELINE } from './modeline.js';

/** A field of a commented mapping. */
export interface Field {
  readonly key: string;
  readonly value: unknown;
  /** What the field does, after it on its line (or above it when its value spans lines). */
  readonly comment?: string;
  /** Write a mapping or list value on one line: `{type: sine, amplitude: 30}`. */
  readonly flow?: boolean;
  /**
   * Write each element of a list value, or each field of a mapping value, on one line:
   * `- {key: pod, cardinality: 3}`.
   */
  readonly flowChildren?: boolean;
}

/**
 * An item of a commented mapping: a field, or a commented-out line (an optional field worth knowing) shown
 * before the next field.
 */
export type Item = Field | string;

/** Builds commented mappings of one document, then writes the document. */
export class CommentedDocument {
  private readonly doc = new Document();

  /** A mapping of `items`, in order; commented-out lines after the last field end the mapping. */
  mapping(items: readonly Item[]): YAMLMap {
    const map = new YAMLMap();
    let pending: string[] = [];
    for (const item of items) {
      if (typeof item === 'string') {
        pending.push(item);
        continue;
      }
      const key = new Scalar(item.key);
      const value = isCollection(item.value) || isScalar(item.value) ? (item.value as Node) : this.node(item);
      const above = [...pending];
      if (item.comment !== undefined) {
        // A block mapping or list spans lines: its comment goes above the key.
        if (isCollection(value) && !value.flow) above.push(item.comment);
        else value.comment = ` ${item.comment}`;
      }
      if (above.length) key.commentBefore = above.map((line) => ` ${line}`).join('\n');
      map.items.push(new Pair(key, value));
      pending = [];
    }
    if (pending.length) map.comment = pending.map((line) => ` ${line}`).join('\n');
    return map;
  }

  private node({ value, flow = false, flowChildren = false }: Field): Node {
    const flowNode = (child: unknown) => this.doc.createNode(child, { flow: true });
    if (!flowChildren || value === null || typeof value !== 'object') return this.doc.createNode(value, { flow });
    if (Array.isArray(value)) return this.list(value.map(flowNode));
    const map = new YAMLMap();
    for (const [key, child] of Object.entries(value)) map.items.push(new Pair(new Scalar(key), flowNode(child)));
    return map;
  }

  /** A list of `nodes`. */
  list(nodes: readonly Node[]): YAMLSeq {
    const seq = new YAMLSeq();
    seq.items.push(...nodes);
    return seq;
  }

  /** The text of the document whose root is `root`: the schema modeline first, then `header` (lines of comment). */
  write(root: YAMLMap, header: readonly string[]): string {
    this.doc.contents = root;
    this.doc.commentBefore = [SCHEMA_MODELINE.slice(1), ...header.map((line) => ` ${line}`)].join('\n');
    return this.doc.toString({ lineWidth: 0 });
  }
}

/** `node` with `comment` above it (a list item: an entry of `scenarios`). */
export function withCommentBefore<N extends Node>(node: N, comment: readonly string[]): N {
  node.commentBefore = comment.map((line) => ` ${line}`).join('\n');
  return node;
}
