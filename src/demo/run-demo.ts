import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Board } from '../store/files/board.js';
import type { Task } from '../contracts/task.js';
import { requestDaemon } from '../daemon/control-client.js';
import type { PidInfo } from '../proc/pid-file.js';
import { FileLocker } from '../fs/file-lock.js';
import { readInboxFrom } from '../store/files/inbox-file.js';
import { Mailbox } from '../store/files/mailbox.js';
import type { Logger } from '../log/logger.js';
import { statePaths, type StatePaths } from '../paths.js';
import { readConfig } from '../roster/roster.js';
import { LEAD } from '../contracts/roster.js';
import { Doorbell } from '../watch/doorbell.js';
import { DEMO_TASKS } from './demo-project.js';

/** What the demo's teammates may run: its tasks' commands, and nothing else without asking. */
export const DEMO_SETTINGS = {
  permissions: {
    allow: ['Bash(mkdir:*)', 'Bash(printf:*)', 'Bash(node:*)', 'Bash(tar:*)', 'Edit(calc/**)'],
    deny: ['Bash(rm -rf:*)', 'Bash(curl:*)'],
    defaultMode: 'default',
  },
};

export const DEMO_TEAM = ['alice', 'bob', 'carol'] as const;
const DEMO_TIMEOUT_MS = 90_000;

export interface DemoHooks {
  /** Starts a daemon for the folder and returns once it answers. */
  readonly startDaemon: (paths: StatePaths) => Promise<PidInfo>;
  readonly stopDaemon: (paths: StatePaths, daemon: PidInfo) => Promise<void>;
  /** One line of the live view. */
  readonly show: (line: string) => void;
  readonly logger: Logger;
}

export interface DemoSummary {
  readonly workspace: string;
  readonly stateDir: string;
  readonly kept: boolean;
  readonly wallMs: number;
  readonly daemonPid: number;
  readonly teammatePids: number[];
  readonly tasks: { id: number; subject: string; status: string; owner: string | null }[];
  readonly teammates: { name: string; tasksDone: number; busyMs: number }[];
  readonly reply: string | null;
}

/**
 * The team at work on a small real project, offline: a daemon, three teammates, six tasks with
 * dependencies whose commands write, test and package a calculator, and a message round trip.
 */
export async function runDemo(hooks: DemoHooks, keep: boolean): Promise<DemoSummary> {
  const started = Date.now();
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-demo-'));
  const paths = statePaths(path.join(workspace, '.team'));
  fs.mkdirSync(paths.root, { mode: 0o700 });
  fs.writeFileSync(paths.config, `${JSON.stringify({ members: [], settings: { model: 'offline', idleTimeoutMs: 0, sandbox: 'preferred' } }, null, 2)}\n`);
  // The demo's tasks run without asking: its commands are allowed by rule (docs/permissions.md).
  fs.writeFileSync(path.join(paths.root, 'settings.json'), `${JSON.stringify(DEMO_SETTINGS, null, 2)}\n`);
  const { logger, show } = hooks;
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  const ids = new Map<string, number>();
  for (const spec of DEMO_TASKS) {
    const task = await board.add({ subject: spec.subject, description: spec.description, blockedBy: (spec.after ?? []).map((key) => ids.get(key)!) });
    ids.set(spec.key, task.id);
  }
  show(`workspace ${workspace}: ${DEMO_TASKS.length} tasks on the board, offline model`);
  const daemon = await hooks.startDaemon(paths);
  show(`daemon started (pid ${daemon.pid})`);
  const bell = await Doorbell.open({ dirs: [paths.tasksDir, paths.inboxDir], logger });
  let teammatePids: number[] = [];
  try {
    for (const name of DEMO_TEAM) {
      await requestDaemon(paths, { op: 'spawn', name, role: 'coder' });
      show(`spawned ${name}`);
    }
    teammatePids = readConfig(paths.config).members.flatMap((m) => (m.pid ? [m.pid] : []));
    new Mailbox({ paths, logger }).send({ from: LEAD, to: 'carol', content: 'carol, are you with us?' });
    show('lead -> carol: carol, are you with us?');
    const reply = await watchUntilDone(paths, board, bell, show);
    const tasks = board.list().tasks;
    const summary: DemoSummary = {
      workspace,
      stateDir: paths.root,
      kept: keep,
      wallMs: Date.now() - started,
      daemonPid: daemon.pid,
      teammatePids,
      tasks: tasks.map((t) => ({ id: t.id, subject: t.subject, status: t.status, owner: t.owner })),
      teammates: DEMO_TEAM.map((name) => {
        const done = tasks.filter((t) => t.owner === name && t.status === 'completed');
        return { name, tasksDone: done.length, busyMs: done.reduce((sum, t) => sum + (Date.parse(t.completedAt!) - Date.parse(t.claimedAt!)), 0) };
      }),
      reply,
    };
    return summary;
  } finally {
    await bell.close();
    teammatePids = [...new Set([...teammatePids, ...readConfig(paths.config).members.flatMap((m) => (m.pid ? [m.pid] : []))])];
    if (!keep) {
      await hooks.stopDaemon(paths, daemon);
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }
}

/** Prints claims, completions and messages as they happen, until every task is finished and carol replied. */
async function watchUntilDone(paths: StatePaths, board: Board, bell: Doorbell, show: (line: string) => void): Promise<string | null> {
  const seen = new Map<number, string>();
  let inboxOffset = 0;
  let reply: string | null = null;
  const deadline = Date.now() + DEMO_TIMEOUT_MS;
  const total = DEMO_TASKS.length;
  // Counted as they are shown: two completions seen in one look read 3/6 and 4/6, not 4/6 twice.
  let completedShown = 0;
  for (;;) {
    const tasks = board.list().tasks;
    for (const task of tasks) {
      const state = `${task.status}:${task.owner ?? ''}`;
      if (seen.get(task.id) === state) continue;
      seen.set(task.id, state);
      if (task.status === 'completed') completedShown++;
      const line = describe(task, completedShown, total);
      if (line) show(line);
    }
    const read = readInboxFrom(paths.inboxFile(LEAD), inboxOffset);
    inboxOffset = read.end;
    for (const { message } of read.messages) {
      if (message.type === 'message') show(`${message.from} -> lead: ${message.content}`);
      if (message.type === 'teammate_crashed') show(`! ${message.content}`);
      if (message.from === 'carol' && message.type === 'message') reply = message.content;
    }
    if (tasks.every((t) => t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') && reply !== null) return reply;
    if (Date.now() > deadline) {
      show(`gave up waiting after ${DEMO_TIMEOUT_MS / 1000} s`);
      return reply;
    }
    await bell.wait();
  }
}

function describe(task: Task, done: number, total: number): string | null {
  switch (task.status) {
    case 'in_progress':
      return `${task.owner} claimed #${task.id} ${task.subject}`;
    case 'completed':
      return `${task.owner} completed #${task.id} ${task.subject} (${((Date.parse(task.completedAt!) - Date.parse(task.claimedAt!)) / 1000).toFixed(1)} s)  [${done}/${total} done]`;
    case 'failed':
      return `${task.owner} FAILED #${task.id} ${task.subject}: ${task.result?.split('\n')[0] ?? ''}`;
    default:
      return null;
  }
}

export function formatSummary(summary: DemoSummary): string {
  const lines = [
    '',
    `${summary.tasks.filter((t) => t.status === 'completed').length}/${summary.tasks.length} tasks completed in ${(summary.wallMs / 1000).toFixed(1)} s`,
    ...summary.teammates.map((t) => `  ${t.name.padEnd(6)} ${t.tasksDone} task(s), ${(t.busyMs / 1000).toFixed(1)} s working`),
    `carol's reply: ${summary.reply ?? '(none)'}`,
    summary.kept
      ? `workspace: ${summary.workspace}\nlogs:      ${summary.stateDir}/logs/\nthe daemon is still running: teamd status --dir ${summary.stateDir}; stop it with: teamd stop --dir ${summary.stateDir}`
      : `workspace and logs were in ${summary.workspace} (removed; run with --keep to look around), daemon stopped`,
  ];
  return `${lines.join('\n')}\n`;
}
