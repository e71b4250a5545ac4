import { Command, Option, UsageError } from 'clipanion';
import { flagChoice, outputFileOf, valueFlag } from '../flags.js';
import { SvcCommand } from './svc-command.js';

/**
 * `svc new [--signal …] [--sink …] [--encoder …] [--from URL] [-o FILE [--force]]`: a commented scenario to
 * start from.
 */
export class NewCommand extends SvcCommand {
  static override paths = [['new']];
  static override usage = Command.Usage({
    description: 'Write a commented starter scenario, or one that reproduces a live Prometheus exposition',
    details: `
      Writes a scenario file (on stdout, or into the file of \`-o\`) that validates and runs as written: one entry of the \`--signal\`, delivered by the \`--sink\` through the \`--encoder\`, each field commented, optional fields commented out. Sink addresses are placeholders to replace.

      With \`--from FILE.csv\` (a Grafana "series joined by time" export, or \`time,value\` columns), writes one entry per column whose generator reproduces the column's shape (constant, trend, steps, sine, sawtooth, spikes, flapping, with the fitted parameters), a csv_replay of the column where none fits, and a comment saying what was found and how well it fits.

      With \`--from <URL>\`, reads the Prometheus text exposition at the URL once and writes a scenario that reproduces it: an entry per metric family, with its type, help, label sets and their cardinalities, and values in the ranges read. Credentials in the URL are sent as Basic auth and shown as \`***\`. See docs/new.md.
    `,
    examples: [
      ['A metrics starter on stdout', '$0 new'],
      [
        'A histogram starter for Prometheus remote write, into a file',
        '$0 new --signal histogram --sink remote_write -o latency.yaml',
      ],
      ['Logs as syslog over UDP', '$0 new --signal logs --sink udp --encoder syslog'],
      [
        'A scenario that reproduces what an exporter exposes',
        '$0 new --from http://localhost:9100/metrics -o node.yaml',
      ],
      ['A scenario fitted to a Grafana CSV export', '$0 new --from cpu.csv -o cpu.yaml'],
    ],
  });

  signal = valueFlag(
    '--signal',
    '<metrics|logs|histogram|summary|traces>',
    'Signal type of the starter (default: metrics)',
  );
  sink = valueFlag(
    '--sink',
    '<type>',
    'Sink type: stdout, file, tcp, … (docs/sinks.md; default: stdout); its required fields get placeholders',
  );
  encoder = valueFlag(
    '--encoder',
    '<type>',
    'Encoder type: metrics_text, json_lines, … (default: the one the sink and signal get without one)',
  );
  from = valueFlag(
    '--from',
    '<FILE.csv|URL>',
    'Fit generators to the series of a CSV file, or reproduce the Prometheus text exposition at an http(s) URL or saved in a file',
  );
  output = valueFlag('-o,--output', '<file>', 'Write the scenario into this file instead of stdout');
  force = Option.Boolean('--force', false, { description: 'With -o: replace the file when it exists' });
  template = Option.Boolean('--template', false, {
    description: "The starter scenario, as without --from (the reference tool's flag for it)",
  });

  async execute(): Promise<number> {
    const [sinks, encoders] = await Promise.all([
      import('../../sinks/kinds/index.js'),
      import('../../encoders/kinds/index.js'),
    ]);
    // An alias (--sink kafka) is written as the kind it names.
    const sink =
      this.sink === undefined
        ? undefined
        : sinks.sinkKindOf(flagChoice('--sink', this.sink, [...sinks.SINK_TYPES, ...Object.keys(sinks.SINK_ALIASES)]))!
            .type;
    const encoder =
      this.encoder === undefined
        ? undefined
        : encoders.encoderKindOf(
            flagChoice('--encoder', this.encoder, [
              ...encoders.ENCODER_TYPES,
              ...Object.keys(encoders.ENCODER_ALIASES),
            ]),
          )!.type;
    if (this.template && this.from !== undefined)
      throw new UsageError('--template writes the starter scenario, --from one read from a source: give one of them');
    const file = outputFileOf(this.output);
    if (this.force && file === undefined) throw new UsageError('--force replaces the file of -o: give -o <file> too');
    const text =
      this.from === undefined ? await this.starter(sink, encoder) : await this.profile(this.from, sink, encoder);
    if (file === undefined) {
      await this.print(text);
      return 0;
    }
    const { writeOutputFile } = await import('../output-file.js');
    try {
      await writeOutputFile('-o', file, text, { exclusive: !this.force });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new UsageError(`-o: ${file} exists: give --force to replace it`);
      throw error;
    }
    this.context.stderr.write(`wrote ${file} (check it: svc run ${file} --dry-run)\n`);
    return 0;
  }

  private async starter(sink: string | undefined, encoder: string | undefined): Promise<string> {
    const { starterScenario, STARTER_SIGNALS } = await import('../../new/starter.js');
    const signal = flagChoice('--signal', this.signal ?? 'metrics', STARTER_SIGNALS);
    return this.validated(() => starterScenario({ signal, sink, encoder }));
  }

  private async profile(from: string, sink: string | undefined, encoder: string | undefined): Promise<string> {
    if (this.signal !== undefined)
      throw new UsageError('--signal picks the signal of a starter: with --from, each family read decides its own');
    const [{ readExposition }, { scenarioFromExposition }, { redactText }] = await Promise.all([
      import('../../new/read-exposition.js'),
      import('../../new/from-exposition.js'),
      import('../../redact.js'),
    ]);
    const origin = redactText(from);
    if (/^https?:\/\//i.test(from)) {
      const exposition = await readExposition(from);
      return this.validated(() =>
        scenarioFromExposition(exposition.text, { origin, readAt: exposition.readAt, sink, encoder }),
      );
    }
    const [{ readTextFile }, { MAX_CSV_BYTES }, { looksLikeExposition }, { stat }] = await Promise.all([
      import('../../config/read.js'),
      import('../../language/limits.js'),
      import('../../new/exposition.js'),
      import('node:fs/promises'),
    ]);
    const text = await readTextFile(from, '--from file', MAX_CSV_BYTES, 'CSV or exposition').catch(
      async (error: Error) => {
        // host:9100/metrics is a target as Prometheus writes it, not a file; a path that is there (a directory,
        // a file it may not read) is a file after all, and its read error says what is wrong.
        const missing = await stat(from).then(
          () => false,
          (statError: NodeJS.ErrnoException) => statError.code === 'ENOENT' || statError.code === 'ENOTDIR',
        );
        if (missing && /^[^/\s]+:\d+(\/|$)/.test(from))
          throw new UsageError(`--from ${origin}: no such file; a URL starts with http:// or https://`);
        throw error;
      },
    );
    // A saved scrape (curl …/metrics > file) is profiled as the URL would be, as read when it was written.
    if (looksLikeExposition(text)) {
      const { mtime } = await stat(from);
      return this.validated(() => scenarioFromExposition(text, { origin, readAt: mtime, sink, encoder }));
    }
    return this.fitted(from, text, sink, encoder);
  }

  /** A scenario whose generators reproduce the series of the CSV `text`, read from `file` (docs/new.md). */
  private async fitted(
    file: string,
    text: string,
    sink: string | undefined,
    encoder: string | undefined,
  ): Promise<string> {
    if (sink !== undefined || encoder !== undefined)
      throw new UsageError(
        '--sink and --encoder go with starters, --from URL and a saved exposition: a scenario fitted to a CSV writes to stdout; change its sink in the file',
      );
    const { scenarioFromCsv } = await import('../../new/from-csv.js');
    return this.validated(() => scenarioFromCsv(text, file, file));
  }

  /**
   * The scenario `write` produces, or why the sink and encoder asked for cannot be: a usage error
   * with the validator's messages on those fields, or an error (exit 1) when this installation
   * lacks their build feature (or anything else is wrong: that would be svc's fault, not the flags').
   */
  private async validated(write: () => string): Promise<string> {
    const { ConfigError } = await import('../../language/problems.js');
    try {
      return write();
    } catch (error) {
      const flagsAtFault = (problem: { path: string; code?: string }) =>
        problem.code !== 'feature_not_built' && /(^|\.)(encoder|sink)(\.|$)/.test(problem.path);
      if (!(error instanceof ConfigError) || !error.problems.every(flagsAtFault)) throw error;
      const flags = [this.sink && `--sink ${this.sink}`, this.encoder && `--encoder ${this.encoder}`]
        .filter(Boolean)
        .join(' ');
      const [first, ...more] = error.problems;
      throw new UsageError(
        `${flags || 'svc new'}: ${first!.message}${more.length ? ` (and ${more.length} more problem${more.length === 1 ? '' : 's'} alike)` : ''}`,
      );
    }
  }
}
