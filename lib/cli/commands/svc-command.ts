import { Command, UsageError } from 'clipanion';
import type { SvcContext } from '../context.js';
import { redactText } from '../../redact.js';

/**
 * What every svc command shares: a failure is printed on stderr (clipanion would print it on
 * stdout, which carries event data) and decides the exit code: 2 for a usage mistake, with the
 * command's usage, 1 for anything else, as `error: <message>`.
 */
export abstract class SvcCommand extends Command<SvcContext> {
  /** Exit code decided by {@link catch}; clipanion itself would answer 0 after a caught error. */
  failure: number | undefined;

  /**
   * Writes `text` (or bytes: an image) on stdout; a reader that goes away first (`svc schema | head`) ends the output
   * quietly, as with `svc run`.
   */
  protected print(text: string | Uint8Array): Promise<void> {
    const { stdout } = this.context;
    return new Promise((resolve, reject) => {
      // A failed write's callback comes first, its 'error' event after: the listener stays for that event, else
      // (the write done) goes, so that a command printing line by line does not pile listeners up.
      const swallow = () => {};
      stdout.once('error', swallow);
      stdout.write(text, (error?: NodeJS.ErrnoException | null) => {
        if (!error) stdout.off('error', swallow);
        // After EPIPE the stream is destroyed: what follows fails with ERR_STREAM_DESTROYED, as quietly.
        if (!error || error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') resolve();
        else reject(error);
      });
    });
  }

  override async catch(error: unknown): Promise<void> {
    // Every failure is shown through the one redaction: a message may quote a path or address with credentials.
    if (error instanceof UsageError) {
      this.failure = 2;
      this.context.stderr.write(redactText(this.cli.error(error, { command: this })));
      return;
    }
    this.failure = 1;
    this.context.stderr.write(redactText(`error: ${error instanceof Error ? error.message : String(error)}\n`));
  }
}
