import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How to start a stdio server: what to run, where, with what environment. */
export interface ServerLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** Lines of a server's stderr kept to explain why it failed. */
const KEPT_LINES = 10;
/** How long a server gets to leave after its stdin closes, then after SIGTERM, before SIGKILL. */
const GRACE_MS = 1500;

/**
 * The SDK's stdio transport, for a server in its own process group: the server and everything
 * it starts are stopped together (SIGTERM, then SIGKILL to the group), and its stderr is kept
 * (the last lines, to explain a crash) and handed to `onStderr` line by line.
 */
export class ServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private readonly stderrTail: string[] = [];
  private partial = '';
  private exited: Promise<void> = Promise.resolve();
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  constructor(
    private readonly launch: ServerLaunch,
    private readonly onStderr: (line: string) => void = () => {},
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** How the process ended, with the last lines it wrote to stderr: for the reason a server is unavailable. */
  describeExit(): string {
    const how = this.exit ? (this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`) : 'closed its connection';
    const said = this.stderrTail.filter((line) => line.trim()).at(-1);
    return said ? `${how}: ${said.slice(0, 300)}` : how;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.file, [...this.launch.args], {
        cwd: this.launch.cwd,
        env: this.launch.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        const hint = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${this.launch.file} was not found (is it installed and on PATH?)` : error.message;
        reject(new Error(hint));
        this.onerror?.(new Error(hint));
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
      });
      child.once('close', () => {
        this.child = null;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          // A line over the buffer's limit (10 MiB): the server is stopped, and restarted like one that crashed.
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        // Bounded: each pass takes one whole message out of the buffer.
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on.
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => this.stderr(text));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Stops the server and its whole process group: stdin closed, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.child;
    if (child) {
      child.stdin?.end();
      if (!(await this.exitsWithin(GRACE_MS))) {
        this.signalGroup(child, 'SIGTERM');
        if (!(await this.exitsWithin(GRACE_MS))) this.signalGroup(child, 'SIGKILL');
        await this.exitsWithin(GRACE_MS);
      }
      // What the server started in its group goes with it.
      this.signalGroup(child, 'SIGKILL');
    }
    this.buffer.clear();
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.exited.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  private stderr(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = (lines.pop() ?? '').slice(-4096);
    for (const line of lines) {
      this.stderrTail.push(line.slice(0, 1000));
      if (this.stderrTail.length > KEPT_LINES) this.stderrTail.shift();
      this.onStderr(line);
    }
  }
}
