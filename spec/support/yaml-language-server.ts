/**
 * Drives the real yaml-language-server as an editor does: a child process spoken to over stdio in
 * LSP, through the official client side of the protocol (vscode-languageserver-protocol, on
 * vscode-jsonrpc), so the framing, request ids and message types are the ones editors use rather
 * than a copy written here.
 *
 * yaml-language-server 2.x reads its settings by asking the client (`workspace/configuration`):
 * the settings a `workspace/didChangeConfiguration` carries are ignored, that notification only
 * makes it ask again. So the client answers those requests, and the server asks once on
 * `initialized`; `yaml/schema/store/initialized` tells when it has applied them.
 *
 * Schemas come from a document's `# yaml-language-server: $schema=<ref>` modeline, which wins over
 * the `yaml.schemas` setting (so that setting cannot stand a local file in for a modeline's URL).
 * A relative ref is resolved against the document's folder, so documents are opened under their
 * real `file://` URI. An http(s) ref is asked of the client (`vscode/content`, as VS Code's YAML
 * extension does), which refuses it: the server is never let onto the network.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigurationRequest,
  createProtocolConnection,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  NotificationType,
  PublishDiagnosticsNotification,
  RequestType,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';

export type { Diagnostic } from 'vscode-languageserver-protocol/node';

/** What a server is told. */
export interface YamlLanguageServerOptions {
  /** How long one start, or one document's diagnostics, may take before giving up. */
  timeoutMs?: number;
}

// The server's own extensions of LSP (its src/requestTypes.ts).
const SchemaSelectionSupport = new NotificationType<void>('yaml/supportSchemaSelection');
const SchemaStoreInitialized = new NotificationType<void>('yaml/schema/store/initialized');
const ContentRequestSupport = new NotificationType<void>('yaml/registerContentRequest');
const ContentRequest = new RequestType<string, string, void>('vscode/content');

const SERVER_BIN = join(
  dirname(createRequire(import.meta.url).resolve('yaml-language-server/package.json')),
  'bin',
  'yaml-language-server',
);
const DEFAULT_TIMEOUT_MS = 10_000;

/** A running yaml-language-server: open documents one after another, then {@link stop} it. */
export class YamlLanguageServer {
  private readonly diagnosticsWaiters = new Map<string, (params: PublishDiagnosticsParams) => void>();
  private readonly log: string[] = [];
  // The server caches a document's parse by URI and version: a reopened path needs a new version.
  private lastVersion = 0;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: ProtocolConnection,
    private readonly timeoutMs: number,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) =>
      this.diagnosticsWaiters.get(params.uri)?.(params),
    );
    connection.onNotification(LogMessageNotification.type, ({ message }) => {
      this.log.push(message);
    });
    child.stderr!.on('data', (chunk: Buffer) => this.log.push(chunk.toString()));
    this.exited = new Promise((done) => child.once('exit', () => done()));
  }

  /** Starts a server over stdio, initialized and configured: validation on, no schema store, no network. */
  static async start(options: YamlLanguageServerOptions = {}): Promise<YamlLanguageServer> {
    const child = spawn(process.execPath, [SERVER_BIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createProtocolConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    const server = new YamlLanguageServer(child, connection, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      await server.within('start', server.initialize());
      return server;
    } catch (error) {
      await server.kill();
      throw error;
    }
  }

  private async initialize(): Promise<void> {
    const yaml = {
      validate: true,
      // Both stores are fetched from the internet.
      schemaStore: { enable: false },
      kubernetesCRDStore: { enable: false },
    };
    // The sections the server asks for: yaml, http, [yaml] and editor.
    this.connection.onRequest(ConfigurationRequest.type, ({ items }) =>
      items.map((item) => (item.section === 'yaml' ? yaml : null)),
    );
    this.connection.onRequest(ContentRequest, (url) => {
      throw new Error(`schemas are not fetched in specs: ${url}`);
    });
    const configured = new Promise<void>((done) => this.connection.onNotification(SchemaStoreInitialized, done));
    this.connection.listen();
    await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      // As an editor opened at the repository.
      rootUri: pathToFileURL(process.cwd()).href,
      capabilities: { workspace: { configuration: true } },
    });
    await this.connection.sendNotification(SchemaSelectionSupport);
    await this.connection.sendNotification(ContentRequestSupport);
    await this.connection.sendNotification(InitializedNotification.type, {});
    await configured;
  }

  /**
   * The diagnostics the server publishes for the YAML document at `path` (its text read from disk
   * unless given), opened under its real `file://` URI so a relative modeline resolves as in an
   * editor. The document is closed again, and its diagnostics cleared, before this returns, so the
   * same path can be diagnosed anew.
   */
  async diagnose(path: string, text = readFileSync(path, 'utf8')): Promise<Diagnostic[]> {
    const uri = pathToFileURL(resolve(path)).href;
    if (this.diagnosticsWaiters.has(uri)) throw new Error(`${path} is already being diagnosed`);
    try {
      const opened = { uri, languageId: 'yaml', version: ++this.lastVersion, text };
      return await this.nextDiagnostics(uri, `diagnostics of ${path}`, () =>
        this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: opened }),
      );
    } finally {
      // The server clears a closed document's diagnostics: waiting for that keeps it from being
      // taken for the next diagnostics of the same path.
      await this.nextDiagnostics(uri, `cleared diagnostics of ${path}`, () =>
        this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } }),
      );
    }
  }

  /** Does `send`, then waits, bounded, for the next diagnostics the server publishes for `uri`. */
  private async nextDiagnostics(uri: string, what: string, send: () => Promise<void>): Promise<Diagnostic[]> {
    const published = new Promise<Diagnostic[]>((done) =>
      this.diagnosticsWaiters.set(uri, ({ diagnostics }) => done(diagnostics)),
    );
    try {
      await send();
      return await this.within(what, published);
    } finally {
      this.diagnosticsWaiters.delete(uri);
    }
  }

  /** Shuts the server down as LSP asks (shutdown, exit), and kills it if that fails or takes too long. */
  async stop(): Promise<void> {
    try {
      await this.within('shutdown', this.connection.sendRequest(ShutdownRequest.type));
      await this.connection.sendNotification(ExitNotification.type);
      await this.within('exit', this.exited);
    } finally {
      await this.kill();
    }
  }

  private async kill(): Promise<void> {
    this.connection.dispose();
    this.child.kill();
    await this.exited;
  }

  /** `promise`, bounded by the timeout; a failure says what the server logged meanwhile. */
  private async within<T>(what: string, promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`nothing within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } catch (error) {
      const logged = this.log.length > 0 ? `; it logged:\n${this.log.join('\n')}` : '';
      throw new Error(`yaml-language-server, ${what}: ${(error as Error).message}${logged}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}
