import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { statePaths } from '../../src/paths.js';
import type { Task } from '../../src/contracts/task.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { openBoard } from './board.js';
import { startDaemon } from './daemon.js';
import { FIXTURES, runTeamd } from './processes.js';
import { recordedRequests } from './recorded-requests.js';
import { savedSessionText } from './session.js';
import { makeTempDir } from './temp-dir.js';
import { waitFor } from './wait.js';

/** The Claude Code artefacts (test/fixtures/claude-code/README.md). */
export const CORPUS = path.join(FIXTURES, 'claude-code');

/** Every artefact of the corpus, relative to it (the README aside). */
export function corpusFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name !== 'README.md' || dir !== CORPUS) files.push(path.relative(CORPUS, full));
    }
  };
  walk(CORPUS);
  return files.sort();
}

/** The artefacts a test file installed: it checks at its end that it used every one it owns. */
export const installed = new Set<string>();

/** Copies an artefact, unchanged but for its `{{NAME}}` blanks, to where Claude Code looks for it in a workspace. */
export function install(ws: string, artefact: string, where: string, blanks: Record<string, string> = {}): void {
  installed.add(artefact);
  const target = path.join(ws, where);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  let text = fs.readFileSync(path.join(CORPUS, artefact), 'utf8');
  for (const [name, value] of Object.entries(blanks)) text = text.replaceAll(`{{${name}}}`, value);
  fs.writeFileSync(target, text, { mode: fs.statSync(path.join(CORPUS, artefact)).mode });
}

export const calls = (value: unknown): string => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

/**
 * A workspace with the artefacts installed by `prepare`, a team file that shortens the wait for an
 * answer to an ask (1 s, then denied: nobody answers here) and adds `team` (what the person would
 * have answered or allowed), and alice doing `tasks`.
 */
export async function corpusTeam(
  prepare: (ws: string) => void,
  tasks: { subject: string; description: string }[],
  team: { readonly allow?: readonly string[]; readonly network?: { readonly allowedDomains?: readonly string[]; readonly allowLocalBinding?: boolean } } = {},
) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q', ws]);
  prepare(ws);
  fs.writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({
      permissions: { askTimeoutSeconds: 1, ...(team.allow ? { allow: team.allow } : {}) },
      ...(team.network ? { sandbox: { network: team.network } } : {}),
    }),
  );
  const { board } = openBoard(dir);
  for (const task of tasks) await board.add(task);
  const record = path.join(ws, 'requests.jsonl');
  await startDaemon(dir, { env: { TEAMD_OFFLINE_RECORD: record }, settings: { idleTimeoutMs: 0 } });
  const spawned = await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
  expect(spawned.code, spawned.stderr).toBe(0);
  const paths = statePaths(dir);
  return {
    ws,
    dir,
    board,
    /** Task `id` once it completed or failed. */
    finished: (id: number): Promise<Task> =>
      waitFor(() => (['completed', 'failed'].includes(board.get(id).status) ? board.get(id) : undefined), `task ${id} finished`, 60_000),
    /** What alice asked the lead's leave for (permission requests): the asks. */
    asks: () =>
      readInboxFrom(paths.inboxFile('lead'), 0)
        .messages.map((m) => m.message)
        .filter((m) => m.type === 'permission_request'),
    session: () => savedSessionText(paths.sessionFile('alice')),
    requests: () => recordedRequests(record),
  };
}
