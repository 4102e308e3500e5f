import { TASK_STATUSES } from '../../contracts/task.js';
import type { TodoItem } from '../../contracts/todos.js';
import type { TaskView } from '../../contracts/board-types.js';
import type { Member } from '../../contracts/roster.js';
import { cellWidth, oneLine, padCells, truncateCells } from './cells.js';
import { sectionRows } from './layout.js';
import type { Snapshot } from './snapshot.js';
import { describeRequestInput } from '../../inbox/plan-requests.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

const STATUS_COLOR: Record<string, string> = {
  working: GREEN,
  'waiting-plan': YELLOW,
  'waiting-permission': YELLOW,
  asleep: DIM,
  starting: YELLOW,
  stopping: YELLOW,
  crashed: RED,
  errored: RED,
  budget: RED,
  shutdown: DIM,
  in_progress: GREEN,
  completed: DIM,
  failed: RED,
  cancelled: DIM,
};

/** A piece of a line and its colour; a line is cut to the screen's width before colours are added. */
type Part = readonly [text: string, color?: string];

export interface FrameOptions {
  readonly width: number;
  readonly height: number;
  readonly dir: string;
  readonly color: boolean;
  /** Which page of the team to show when it has more members than rows (n and p in teamd watch); any integer, taken round. */
  readonly memberPage?: number;
}

/** Members that need the person first: errored, crashed, out of budget, waiting for a plan. */
const MEMBER_ATTENTION = [
  'errored',
  'crashed',
  'budget',
  'waiting-permission',
  'waiting-plan',
  'starting',
  'stopping',
  'working',
  'idle',
  'asleep',
  'shutdown',
];

function taskRank(task: TaskView): number {
  if (task.status === 'failed') return 0;
  if (task.status === 'pending' && task.stuck) return 1;
  if (task.status === 'in_progress') return 2;
  if (task.status === 'pending' && task.ready) return 3;
  return 4;
}

/**
 * One frame of `teamd watch`: never wider than `width` columns (measured in terminal cells:
 * emoji and CJK count two) nor taller than `height` lines, with what needs attention (failed and
 * stuck tasks, errored or waiting teammates) first in each section.
 */
export function renderFrame(snapshot: Snapshot, options: FrameOptions): string[] {
  const width = Math.max(1, options.width);
  const paint = (parts: readonly Part[]): string => fitParts(parts, width, options.color);
  const members = [...snapshot.members].sort((a, b) => rank(MEMBER_ATTENTION, a.status) - rank(MEMBER_ATTENTION, b.status) || a.name.localeCompare(b.name));
  const tasks = snapshot.tasks
    .filter((t) => t.status === 'in_progress' || t.status === 'pending' || t.status === 'failed')
    .sort((a, b) => taskRank(a) - taskRank(b) || a.id - b.id);
  const messages = snapshot.messages;
  // What waits for the person's answer comes first, on its own rows: a few, then how many more.
  const asks = Math.min(MAX_ASKS, snapshot.requests.length);
  const rows = sectionRows(options.height - (asks > 0 ? asks + 1 : 0), {
    members: snapshot.rosterError ? 1 : members.length,
    tasks: tasks.length,
    messages: messages.length,
  });

  const lines: string[] = [];
  const daemon: Part = snapshot.daemon ? [`daemon pid ${snapshot.daemon.pid}`, GREEN] : ['daemon not running', RED];
  lines.push(paint([['teamd ', BOLD], daemon, ['  q quits  ', DIM], [options.dir, DIM]]));
  const gap = (): void => {
    if (rows.gaps) lines.push('');
  };

  if (asks > 0) {
    lines.push(
      paint([
        ['NEEDS YOUR ANSWER', `${BOLD}${YELLOW}`],
        [`  ${snapshot.requests.length} waiting: a approves the first, r rejects it`, DIM],
      ]),
    );
    const now = Date.now();
    for (const [i, request] of snapshot.requests.slice(0, asks).entries())
      lines.push(
        paint(
          i === asks - 1 && snapshot.requests.length > asks
            ? [[`  … ${snapshot.requests.length - asks + 1} more: teamd plans`, DIM]]
            : [
                [`  ${request.requestId.slice(0, 8)} `, i === 0 ? BOLD : ''],
                [`${request.from} `],
                [
                  request.kind === 'permission'
                    ? `runs ${oneLine(`${request.tool ?? '?'}: ${describeRequestInput(request.input)}`)}`
                    : `plan: ${oneLine(request.plan)}`,
                ],
                [`${request.taskId === null ? '' : `  task ${request.taskId}`}  ${Math.round((now - Date.parse(request.at)) / 1000)}s`, DIM],
              ],
        ),
      );
  }

  gap();
  lines.push(
    paint([
      ['TEAM', BOLD],
      [`  ${members.length} teammate${members.length === 1 ? '' : 's'}`, DIM],
    ]),
  );
  if (snapshot.rosterError) lines.push(paint([[`  ${oneLine(snapshot.rosterError)}`, RED]]));
  else if (members.length === 0) lines.push(paint([['  no teammates yet: teamd spawn <name> <role>', DIM]]));
  else
    lines.push(
      ...teamPage(
        members,
        rows.members,
        options.memberPage ?? 0,
        (m) => paint(memberRow(m, width)),
        (text) => paint([[text, DIM]]),
      ),
    );

  gap();
  const counts = TASK_STATUSES.map((status) => `${snapshot.tasks.filter((t) => t.status === status).length} ${status}`).join(', ');
  lines.push(paint([['BOARD', BOLD], [`  ${counts}`], ...(snapshot.problems ? ([[`, ${snapshot.problems} unreadable file(s)`, RED]] as Part[]) : [])]));
  if (tasks.length === 0) lines.push(paint([['  nothing pending or in progress', DIM]]));
  else
    lines.push(
      ...section(
        tasks,
        rows.tasks,
        (t) => paint(taskRow(t, width, t.owner ? snapshot.todos.get(t.owner) : undefined)),
        (hidden) => paint([[moreLine(hidden, 'task', hidden.filter((t) => taskRank(t) <= 1).length), DIM]]),
      ),
    );

  gap();
  lines.push(paint([['MESSAGES', BOLD]]));
  if (messages.length === 0) lines.push(paint([['  none yet', DIM]]));
  else
    for (const message of messages.slice(-rows.messages)) {
      const kind = message.type === 'message' ? '' : ` [${message.type}]`;
      lines.push(
        paint([[`  ${message.timestamp.slice(11, 19)} `, DIM], [`${message.from} -> ${message.to}${kind}: `], [oneLine(message.content.split('\n')[0] ?? '')]]),
      );
    }
  return lines.slice(0, Math.max(1, options.height));
}

/** Requests shown on the screen at most; the rest are counted. */
const MAX_ASKS = 3;

function rank(order: readonly string[], status: string): number {
  const at = order.indexOf(status);
  return at === -1 ? order.length : at;
}

function needsAttention(hidden: readonly Member[]): number {
  return hidden.filter((m) => rank(MEMBER_ATTENTION, m.status) <= 4).length;
}

/**
 * One page of the team: all of it when it fits; else `room - 1` members of page `page` (taken
 * round, so n past the last page comes back to the first) and a last row saying which, how to
 * page, and how many on the other pages need a look. Those who need a look sort first, so page 1 has them.
 */
function teamPage(members: readonly Member[], room: number, page: number, row: (member: Member) => string, note: (text: string) => string): string[] {
  if (members.length <= room) return members.map(row);
  const size = Math.max(1, room - 1);
  const pages = Math.ceil(members.length / size);
  const at = ((page % pages) + pages) % pages;
  const shown = members.slice(at * size, (at + 1) * size);
  const elsewhere = needsAttention(members.filter((member) => !shown.includes(member)));
  // What matters most comes first: the line is cut at the screen's edge.
  const look = elsewhere > 0 ? ` (${elsewhere} elsewhere need${elsewhere === 1 ? 's' : ''} a look)` : '';
  const pager = `  page ${at + 1}/${pages}, teammates ${at * size + 1}-${at * size + shown.length} of ${members.length}${look}: n next, p previous`;
  return room <= 1 ? [note(pager)] : [...shown.map(row), note(pager)];
}

/** The rows that fit; when some do not, the last row says how many are hidden (and how many of them need a look). */
function section<T>(items: readonly T[], room: number, row: (item: T) => string, more: (hidden: readonly T[]) => string): string[] {
  if (items.length <= room) return items.map(row);
  const shown = Math.max(0, room - 1);
  return [...items.slice(0, shown).map(row), more(items.slice(shown))];
}

function moreLine(hidden: readonly unknown[], what: string, attention: number): string {
  return `  … ${hidden.length} more ${what}${hidden.length === 1 ? '' : 's'}${attention > 0 ? ` (${attention} need${attention === 1 ? 's' : ''} a look)` : ''}`;
}

function memberRow(member: Member, width: number): Part[] {
  const usage = member.usage
    ? `${Math.round((member.usage.inputTokens + member.usage.outputTokens + member.usage.cacheReadTokens + member.usage.cacheWriteTokens) / 1000)}k tok`
    : '';
  const narrow = width < 60;
  return [
    [`  ${padCells(member.name, narrow ? 8 : 12)} `],
    ...(narrow ? [] : ([[`${padCells(oneLine(member.role), 10)} `]] as Part[])),
    [padCells(member.status, 12), STATUS_COLOR[member.status] ?? ''],
    [` ${padCells(member.task ? `#${member.task}` : '', 6)} `],
    [usage, DIM],
  ];
}

function taskRow(task: TaskView, width: number, todos: readonly TodoItem[] = []): Part[] {
  const note: Part =
    task.status !== 'pending'
      ? [task.owner ? `${task.owner}${task.status === 'in_progress' ? planNote(todos) : ''}` : '']
      : task.stuck
        ? [`STUCK on ${task.stuckOn.join(',')}`, RED]
        : task.ready
          ? ['ready', GREEN]
          : [`waits on ${task.waitingOn.join(',')}`];
  const id = `  ${String(task.id).padStart(4)} `;
  const status = padCells(task.status, 12);
  const noteWidth = Math.min(cellWidth(note[0]), 40);
  const subjectWidth = Math.max(4, width - cellWidth(id) - 12 - noteWidth - 2);
  return [[id], [status, STATUS_COLOR[task.status] ?? ''], [`${padCells(oneLine(task.subject), subjectWidth)} `], [truncateCells(note[0], noteWidth), note[1]]];
}

/** Joins parts, cut to `width` columns as a whole, then coloured (escape codes take no columns). */
/** ": Running the tests (2/5)": the step in progress of a teammate's plan, and how far it got. */
function planNote(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return '';
  const current = todos.find((item) => item.status === 'in_progress');
  const done = todos.filter((item) => item.status === 'completed').length;
  return `: ${current ? `${oneLine(current.activeForm)} ` : ''}(${done}/${todos.length})`;
}

function fitParts(parts: readonly Part[], width: number, color: boolean): string {
  let left = width;
  let out = '';
  for (const [text, code] of parts) {
    if (left <= 0) break;
    const whole = cellWidth(text) <= left;
    const piece = whole ? text : truncateCells(text, left);
    left -= cellWidth(piece);
    out += color && code ? `${code}${piece}${RESET}` : piece;
    if (!whole) break;
  }
  return color ? out : out.trimEnd();
}
