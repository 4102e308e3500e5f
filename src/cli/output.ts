import type { BoardListing, TaskView } from '../contracts/board-types.js';
import type { Task } from '../contracts/task.js';
import type { ClosedPipe } from './closed-pipe.js';
import { TeamdError } from '../errors.js';
import { FdWriter } from '../platform/fd-writer.js';
import { forTerminal } from './terminal-text.js';

/** Where the CLI writes. Injected so commands never reach for process globals. */
export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** All of standard input, for arguments given as '-'. */
  readonly readStdin: () => Promise<string>;
  /** Standard input as a stream, for a command that reads it line by line as it comes (teamd lead). */
  readonly stdin?: NodeJS.ReadableStream;
  /**
   * stdout and stderr as streams, for a command that needs more than text: the terminal's size
   * (teamd watch), a log tee (the daemon). Made when asked for; `out` and `err` write through
   * them from then on (fd-writer.ts).
   */
  readonly stdoutStream: () => NodeJS.WriteStream;
  readonly stderrStream: () => NodeJS.WriteStream;
  /**
   * A closed stdout or stderr ends a command quietly (closed-pipe.ts); a daemon run in the
   * foreground passes a handler that outlives them, the demo one that stops its daemon first.
   */
  readonly onClosedPipe: (handler: (code: number) => void) => void;
}

/** The process's own stdout, stderr and stdin; a failed write goes to `closed`. */
export function processIo(closed: ClosedPipe): Io {
  const stdout = new FdWriter(
    1,
    () => process.stdout,
    (error) => closed.failed(error, 'stdout'),
  );
  const stderr = new FdWriter(
    2,
    () => process.stderr,
    (error) => closed.failed(error, 'stderr'),
  );
  return {
    onClosedPipe: closed.handle,
    // Text only: what a teammate wrote is shown, never obeyed by the terminal (terminal-text.ts).
    out: (text) => stdout.write(forTerminal(text)),
    err: (text) => stderr.write(forTerminal(text)),
    stdoutStream: () => stdout.toStream(),
    stderrStream: () => stderr.toStream(),
    env: process.env,
    cwd: process.cwd(),
    // Created when read (teamd lead): making it is ~1.5 ms of every command's start.
    get stdin() {
      return process.stdin;
    },
    readStdin: () => readBounded(process.stdin, MAX_STDIN_BYTES),
  };
}

/**
 * The most read from standard input for an argument given as '-': far above any field's own limit
 * (a description 64 KiB, a message 256 KiB), which each command then checks, but a bound on what
 * is held in memory before it can say so (a 300 MB pipe took ~940 MB, more failed outright).
 */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/** All of a stream, as UTF-8 text; past `maxBytes` it stops reading and refuses (INVALID_INPUT). */
export async function readBounded(input: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > maxBytes) {
      (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new TeamdError('INVALID_INPUT', `standard input is over ${maxBytes} bytes: put long text in a file and refer to it`);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Columns padded to their widest cell, two spaces apart; the last one (free text) is not padded. */
export function formatColumns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const last = header.length - 1;
  const widths = header.slice(0, last).map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]): string =>
    `${row
      .slice(0, last)
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')}  ${row[last]}`.trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

export function printProblems(io: Io, listing: BoardListing): void {
  for (const problem of listing.problems) {
    io.err(`warning: skipped ${problem.file}: ${problem.reason}. The file was left untouched; fix it or move it aside.\n`);
  }
}

function readinessNote(task: TaskView): string {
  if (task.status !== 'pending') return '';
  if (task.stuck) return `stuck: blocker ${task.stuckOn.join(', ')} failed or cancelled`;
  if (task.ready) return 'ready';
  return `waiting on ${task.waitingOn.join(', ')}`;
}

export function formatTaskTable(tasks: readonly TaskView[]): string {
  if (tasks.length === 0) return 'no tasks\n';
  const rows = tasks.map((task) => [String(task.id), task.status, task.owner ?? '-', task.subject, readinessNote(task)]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length), ['ID', 'STATUS', 'OWNER'][column]!.length));
  const pad = (row: string[]): string =>
    `${row
      .slice(0, 3)
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')}  ${row[3]}${row[4] ? `  [${row[4]}]` : ''}`.trimEnd();
  return `${[pad(['ID', 'STATUS', 'OWNER', 'SUBJECT', '']), ...rows.map(pad)].join('\n')}\n`;
}

export function formatTask(task: TaskView): string {
  const lines = [
    `task ${task.id}: ${task.subject}`,
    `  status:     ${task.status}${readinessNote(task) ? ` (${readinessNote(task)})` : ''}`,
    `  owner:      ${task.owner ?? '-'}   claim: ${task.claim}`,
    `  blocked by: ${task.blockedBy.length > 0 ? task.blockedBy.join(', ') : '-'}`,
    `  created:    ${task.createdAt}`,
    `  updated:    ${task.updatedAt}`,
  ];
  if (task.claimedAt) lines.push(`  claimed:    ${task.claimedAt}`);
  if (task.completedAt) lines.push(`  finished:   ${task.completedAt}`);
  if (task.description) lines.push('  description:', indent(task.description));
  if (task.result !== null) lines.push(task.status === 'failed' ? '  reason:' : '  result:', indent(task.result));
  return `${lines.join('\n')}\n`;
}

export function formatChange(task: Task, verb: string): string {
  return `task ${task.id} ${verb}${task.owner ? ` (owner ${task.owner}, claim ${task.claim})` : ''}: ${task.subject}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
