import { TASK_STATUSES } from '../../board/task.js';
import type { Snapshot } from './snapshot.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

const STATUS_COLOR: Record<string, string> = {
  working: GREEN,
  idle: '',
  asleep: DIM,
  starting: YELLOW,
  stopping: YELLOW,
  crashed: RED,
  errored: RED,
  shutdown: DIM,
  in_progress: GREEN,
  pending: '',
  completed: DIM,
  failed: RED,
  cancelled: DIM,
};

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
}

/** One frame of `teamd watch`, plain text with ANSI colours (`color: false` for none). */
export function renderFrame(snapshot: Snapshot, options: { width: number; height: number; dir: string; color: boolean }): string {
  const c = (code: string, text: string): string => (options.color && code ? `${code}${text}${RESET}` : text);
  const width = Math.max(40, options.width);
  const lines: string[] = [];
  const daemon = snapshot.daemon ? c(GREEN, `daemon pid ${snapshot.daemon.pid}`) : c(RED, 'daemon not running');
  lines.push(`${c(BOLD, 'teamd')} ${fit(options.dir, width - 40)}  ${daemon}   ${c(DIM, 'q quits')}`);
  lines.push('');
  lines.push(c(BOLD, 'TEAM'));
  if (snapshot.members.length === 0) lines.push(c(DIM, '  no teammates yet: teamd spawn <name> <role>'));
  for (const member of snapshot.members) {
    const usage = member.usage
      ? `${Math.round((member.usage.inputTokens + member.usage.outputTokens + member.usage.cacheReadTokens + member.usage.cacheWriteTokens) / 1000)}k tok`
      : '';
    const task = member.task ? `#${member.task}` : '';
    const row = `  ${member.name.padEnd(10)} ${member.role.padEnd(10)} ${c(STATUS_COLOR[member.status] ?? '', member.status.padEnd(9))} ${task.padEnd(6)} ${usage}`;
    lines.push(fit(row, width + 20));
  }
  lines.push('');
  const counts = TASK_STATUSES.map((status) => `${snapshot.tasks.filter((t) => t.status === status).length} ${status}`).join(', ');
  lines.push(`${c(BOLD, 'BOARD')}  ${counts}${snapshot.problems ? c(RED, `, ${snapshot.problems} unreadable file(s)`) : ''}`);
  const shown = snapshot.tasks.filter((t) => t.status === 'in_progress' || t.status === 'pending' || t.status === 'failed');
  const taskRows = Math.max(3, options.height - lines.length - 14);
  for (const task of shown.slice(0, taskRows)) {
    const note =
      task.status !== 'pending'
        ? (task.owner ?? '')
        : task.stuck
          ? c(RED, `STUCK on ${task.stuckOn.join(',')}`)
          : task.ready
            ? c(GREEN, 'ready')
            : `waits on ${task.waitingOn.join(',')}`;
    lines.push(
      `  ${String(task.id).padStart(4)} ${c(STATUS_COLOR[task.status] ?? '', task.status.padEnd(11))} ${fit(task.subject, width - 40).padEnd(Math.min(40, width - 40))} ${note}`,
    );
  }
  if (shown.length > taskRows) lines.push(c(DIM, `  … ${shown.length - taskRows} more`));
  lines.push('');
  lines.push(c(BOLD, 'MESSAGES'));
  if (snapshot.messages.length === 0) lines.push(c(DIM, '  none yet'));
  for (const message of snapshot.messages) {
    const kind = message.type === 'message' ? '' : ` [${message.type}]`;
    lines.push(fit(`  ${message.timestamp.slice(11, 19)} ${message.from} -> ${message.to}${kind}: ${message.content.split('\n')[0]}`, width + 10));
  }
  return `${lines.join('\n')}\n`;
}
