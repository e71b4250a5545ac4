import { Command, Option, UsageError } from 'clipanion';
import { writeOutputFile } from '../output-file.js';
import { flagNumber, outputFileOf, valueFlag } from '../flags.js';
import { coloursAllowed, isTerminal } from '../terminal.js';
import { ScenarioSourceCommand } from './scenario-source-command.js';

/** Width of the charts when neither `--width` nor the terminal says. */
const DEFAULT_WIDTH = 100;
/** Most points of the SVG and PNG charts: about one per two pixels of their plot area. */
const IMAGE_POINTS = 450;

/** `svc plot <scenario-file>`: every entry over a span of virtual time, drawn in the terminal or as an image. */
export class PlotCommand extends ScenarioSourceCommand {
  static override paths = [['plot']];
  static override usage = Command.Usage({
    description: 'Draw what every entry of a scenario file makes over a span of virtual time',
    details:
      'Computes the entries as a backfill would, on virtual time and without writing to their sinks, and draws one chart per entry: lines in braille characters, logs as a strip per severity, histograms as a p50/p90/p99 band, traces as spans/s and error ratio; bursts, while gates and late starts marked under the chart, gaps left empty. docs/plot.md says what each chart shows.',
    examples: [
      ['A file, until its entries end (at most 30 minutes)', '$0 plot examples/plot.yaml'],
      ['One entry over two hours, 120 columns wide', '$0 plot examples/plot.yaml --entry cpu --for 2h --width 120'],
      ['The charts as images', '$0 plot examples/plot.yaml --svg /tmp/plot.svg --png /tmp/plot.png'],
      ['A scenario of a catalog', '$0 plot @checkout-incident --catalog examples/catalog'],
    ],
  });

  file = Option.String({ required: true, name: 'scenario-file' });
  for = valueFlag(
    '--for',
    '<time>',
    'Virtual time to draw from the file start: 30s, 30m, 2h, at most 24h (default: until the last entry ends when every entry has a duration, at most 30m)',
  );
  entry = valueFlag('--entry', '<id>', 'Draw this entry only (the entries it needs run too)');
  width = valueFlag(
    '--width',
    '<n>',
    'Width of the charts in characters, 40 to 500 (default: the terminal width, else 100)',
  );
  svg = valueFlag('--svg', '<path>', 'Write the charts as SVG to this file (- for stdout) instead of drawing them');
  png = valueFlag('--png', '<path>', 'Write the charts as PNG to this file (- for stdout) instead of drawing them');

  async execute(): Promise<number> {
    const [
      { parseDuration },
      { DEFAULT_PREVIEW_MS, MAX_PREVIEW_MS, defaultPreviewFor, previewScenario, PreviewError },
      { MIN_WIDTH, MAX_WIDTH, plotColumns },
      { formatMs },
    ] = await Promise.all([
      import('../../language/duration.js'),
      import('../../preview/index.js'),
      import('../plot/terminal.js'),
      import('../../format.js'),
    ]);
    let givenMs: number | undefined;
    if (this.for !== undefined) {
      try {
        givenMs = parseDuration(this.for);
      } catch (error) {
        throw new UsageError(`--for: ${(error as Error).message}`);
      }
      if (givenMs > MAX_PREVIEW_MS) throw new UsageError(`--for: at most 24h, got ${JSON.stringify(this.for)}`);
    }
    const width =
      this.width === undefined
        ? Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, terminalWidth(this.context.stdout) ?? DEFAULT_WIDTH))
        : flagNumber('--width', this.width, {
            integer: true,
            min: MIN_WIDTH,
            max: MAX_WIDTH,
            expected: `a whole number from ${MIN_WIDTH} to ${MAX_WIDTH}`,
          });
    const image = this.svg !== undefined || this.png !== undefined;
    if (this.svg === '-' && this.png === '-')
      throw new UsageError('--svg - and --png - would both write standard output: give one of them a file');
    if (this.png !== undefined) {
      const { featureRefusal } = await import('../../features.js');
      const refusal = featureRefusal('png');
      if (refusal) throw new UsageError(`--png ${refusal}`);
    }

    const plan = await this.planOf(await this.loadScenarioArg(this.file, {}));
    // The span, known before the preview: its points follow from it, and the header says it exactly.
    const forMs = givenMs ?? defaultPreviewFor(plan.plans, this.entry);
    let preview: Awaited<ReturnType<typeof previewScenario>>;
    try {
      preview = await previewScenario(plan.plans, {
        for: forMs,
        points: image ? imagePoints(forMs) : 2 * plotColumns(width),
        ...(this.entry !== undefined && { entry: this.entry }),
      });
    } catch (error) {
      // Bounds of the flags are usage errors; too much work is the file's (exit 1).
      if (error instanceof PreviewError && error.option !== 'rate') throw new UsageError(`--${error.message}`);
      if (error instanceof PreviewError) throw new Error(`${error.message}: give a shorter --for, or one --entry`);
      throw error;
    }
    // The header says when the default span was cut short to where the entries end.
    const forText = this.for ?? `${formatMs(forMs)}${forMs < DEFAULT_PREVIEW_MS ? ' (until the entries end)' : ''}`;
    const span = `${forText} from ${new Date(preview.from).toISOString()}, a point every ${formatStep(preview.step)}`;
    if (!image) {
      const { drawPreview, fitLines } = await import('../plot/terminal.js');
      const header = `${fitLines(this.file, width)}\n${fitLines(span, width)}`;
      await this.print(`${header}\n\n${drawPreview(preview, { colour: coloursAllowed(this.context) })}`);
      return 0;
    }
    const caption = `${this.file}: ${span}`;
    const { previewSvg } = await import('../plot/svg.js');
    const svg = previewSvg(preview, caption);
    if (this.svg !== undefined) await this.writeImage('--svg', this.svg, svg);
    if (this.png !== undefined) {
      const { featurePackage } = await import('../../features.js');
      const { Resvg } = featurePackage<typeof import('@resvg/resvg-js')>('png', '@resvg/resvg-js');
      const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } })
        .render()
        .asPng();
      await this.writeImage('--png', this.png, png);
    }
    return 0;
  }

  /** Writes `image` where `option` says: its file, or standard output for `-`. */
  private async writeImage(option: string, path: string, image: string | Uint8Array): Promise<void> {
    const file = outputFileOf(path);
    if (file === undefined) return this.print(image);
    await writeOutputFile(option, file, image);
    this.context.stderr.write(`wrote ${file}\n`);
  }
}

/**
 * Points of an image of `forMs`: the most up to {@link IMAGE_POINTS} whose step is whole seconds, else whole
 * milliseconds, so that a steady rate does not alternate between steps of n and n + 1 events.
 */
function imagePoints(forMs: number): number {
  for (const unit of [1000, 1])
    for (let points = IMAGE_POINTS; points >= IMAGE_POINTS / 2; points--)
      if ((forMs / points) % unit === 0) return points;
  return IMAGE_POINTS;
}

/** The columns of a terminal `stdout` is, when it is one. */
function terminalWidth(stdout: NodeJS.WritableStream): number | undefined {
  return isTerminal(stdout) ? (stdout as NodeJS.WriteStream).columns : undefined;
}

/** A step as a caption writes it: `7.5s`, `450ms`. */
function formatStep(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toPrecision(3))}s` : `${Number(ms.toPrecision(3))}ms`;
}
