import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { collectOutput, REPO_ROOT, runTeamd } from '../helpers/processes.js';
import { savedSessionText } from '../helpers/session.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor, waitForAsync } from '../helpers/wait.js';
import { recordedRequests } from '../helpers/recorded-requests.js';

const calls = (value: unknown) => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

async function team(tasks: { subject: string; description: string }[], setup: (dir: string) => void = () => {}) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  for (const task of tasks) await board.add(task);
  setup(dir);
  const record = path.join(ws, 'requests.jsonl');
  await startDaemon(dir, { env: { TEAMD_OFFLINE_RECORD: record, TEAMD_USER_SKILLS: path.join(ws, 'no-user-skills') } });
  const paths = statePaths(dir);
  return {
    ws,
    dir,
    board,
    paths,
    seen: () => recordedRequests(record),
    session: (name = 'alice') => savedSessionText(paths.sessionFile(name)),
  };
}

function writeSkill(dir: string, name: string, text: string): void {
  fs.mkdirSync(path.join(dir, 'skills', name), { recursive: true });
  fs.writeFileSync(path.join(dir, 'skills', name, 'SKILL.md'), text);
}

describe("the teammate's toolkit", () => {
  it('todo_write: the plan is kept, shown in status --json, and a reminder comes when it is not updated for three model calls', async () => {
    const items = [
      { content: 'write the file', status: 'in_progress', activeForm: 'Writing the file' },
      { content: 'check it', status: 'pending', activeForm: 'Checking it' },
    ];
    const { dir, board, session } = await team([
      {
        subject: 'multi-step',
        description: calls([
          { name: 'todo_write', input: { items } },
          { name: 'bash', input: { command: 'echo one' } },
          { name: 'bash', input: { command: 'echo two' } },
          { name: 'bash', input: { command: 'echo three' } },
          { name: 'bash', input: { command: 'echo four' } },
        ]),
      },
    ]);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'task 1 done');
    const reminders = session()
      .split('\n')
      .filter((line) => line.includes('[teamd:todo-reminder]'));
    // Once per three calls without an update: after echo three (the fourth call since todo_write), not before.
    expect(reminders.length).toBeGreaterThanOrEqual(1);
    const text = session();
    expect(text.indexOf('[teamd:todo-reminder]')).toBeGreaterThan(text.indexOf('echo three'));
    expect(reminders[0]).toContain('You have not updated your plan in 3 model calls');
    expect(reminders[0]).toContain('[in_progress] write the file');
    const status = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { members: { name: string; todos: unknown[] }[] };
    expect(status.members.find((m) => m.name === 'alice')!.todos).toEqual(items);
    // Two items in progress at once is refused, as the model would be told.
    const {
      board: b2,
      dir: d2,
      session: s2,
    } = await team([
      {
        subject: 'bad plan',
        description: calls([{ name: 'todo_write', input: { items: [items[0], { ...items[1], status: 'in_progress' }] }, allowError: true }]),
      },
    ]);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', d2])).code).toBe(0);
    await waitFor(() => b2.get(1).status === 'completed' || undefined, 'task done');
    expect(s2()).toContain('at most one item may be in_progress at a time');
  });

  it("watch shows the step in progress of a working teammate's plan beside its task", async () => {
    const items = [
      { content: 'wait for go', status: 'in_progress', activeForm: 'Waiting for go' },
      { content: 'finish', status: 'pending', activeForm: 'Finishing' },
    ];
    const { dir, ws, board } = await team([
      {
        subject: 'waits',
        description: calls([
          { name: 'todo_write', input: { items } },
          { name: 'bash', input: { command: 'while [ ! -f go ]; do sleep 0.05; done' } },
        ]),
      },
    ]);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const frame = await waitForAsync(async () => {
      const shown = (await runTeamd(['watch', '--once', '--dir', dir], { env: { COLUMNS: '120', NO_COLOR: '1' } })).stdout;
      return shown.includes('alice: Waiting for go (0/2)') ? shown : undefined;
    }, 'the plan in watch');
    expect(frame).toContain('in_progress');
    fs.writeFileSync(path.join(ws, 'go'), '');
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'task done');
  });

  it("skills: one added while the team runs is in the next request's system prompt; load_skill returns its body and files; bad skills are listed with a warning", async () => {
    const { dir, board, seen, session } = await team([], (d) => {
      writeSkill(d, 'release', '---\nname: release\ndescription: How we cut a release\n---\nRun the release script, then tag.\n');
      writeSkill(d, 'broken', 'no front matter here\n');
      writeSkill(d, 'reviewers-only', '---\nname: reviewers-only\ndescription: Review checklist\nroles: reviewer\n---\nCheck the tests.\n');
    });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await board.add({ subject: 'first', description: calls([{ name: 'list_tasks', input: {} }]) });
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'task 1 done');
    const first = seen()
      .filter((s) => s.teammate === 'alice')
      .at(-1)!;
    expect(first.system).toContain('- release: How we cut a release');
    expect(first.system).not.toContain('reviewers-only');
    expect(first.tools).toEqual(expect.arrayContaining(['load_skill', 'remember', 'todo_write', 'glob']));

    writeSkill(dir, 'deploy', '---\nname: deploy\ndescription: Deploying to staging\n---\nUse the deploy script.\n');
    fs.writeFileSync(path.join(dir, 'skills', 'deploy', 'checklist.md'), '1. smoke test\n');
    await board.add({
      subject: 'second',
      description: calls([
        { name: 'load_skill', input: { name: 'deploy' } },
        { name: 'load_skill', input: { name: 'deploy', file: 'checklist.md' } },
        { name: 'load_skill', input: { name: 'nope' }, allowError: true },
      ]),
    });
    await waitFor(() => board.get(2).status === 'completed' || undefined, 'task 2 done');
    expect(
      seen()
        .filter((s) => s.teammate === 'alice')
        .at(-1)!.system,
    ).toContain('- deploy: Deploying to staging');
    const text = session();
    expect(text).toContain('Use the deploy script.');
    expect(text).toContain('checklist.md');
    expect(text).toContain('1. smoke test');
    expect(text).toContain('there is no skill \\"nope\\"; known: broken, deploy, release');

    const listed = await runTeamd(['skills', '--dir', dir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('reviewers-only [reviewer]: Review checklist');
    expect(listed.stderr).toContain('broken/SKILL.md: SKILL.md has no front matter');
  });

  it("memory: MEMORY.md and the teammate's file are in every request; edited by hand, the next request has it; remember adds a line", async () => {
    const { dir, board, seen, paths } = await team([], (d) => {
      fs.mkdirSync(path.join(d, 'memory'), { recursive: true });
      fs.writeFileSync(path.join(d, 'memory', 'MEMORY.md'), '- the build uses make\n');
    });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await board.add({ subject: 'learn', description: calls([{ name: 'remember', input: { text: 'tests live in test/', scope: 'me' } }]) });
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'task 1 done');
    expect(seen().at(-1)!.system).toContain("The team's memory:\n- the build uses make");
    expect(seen().at(-1)!.system).toContain('Your own memory:\n- tests live in test/');
    fs.appendFileSync(path.join(paths.memoryDir, 'MEMORY.md'), '- deploys happen on Fridays\n');
    await board.add({ subject: 'again', description: calls([{ name: 'list_tasks', input: {} }]) });
    await waitFor(() => board.get(2).status === 'completed' || undefined, 'task 2 done');
    expect(seen().at(-1)!.system).toContain('- deploys happen on Fridays');
    const shown = await runTeamd(['memory', '--dir', dir]);
    expect(shown.stdout).toContain('- tests live in test/');
  });

  it('two processes remembering at once: every line is kept, none torn', async () => {
    const dir = path.join(makeTempDir('teamd-ws-'), '.team');
    fs.mkdirSync(dir, { recursive: true });
    const script = `
      const { MemoryStore } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/src/memory/memory-store.js'))});
      const { FileLocker } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/src/fs/file-lock.js'))});
      const { statePaths } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/src/paths.js'))});
      const { createLogger } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/src/log/logger.js'))});
      const store = new MemoryStore(statePaths(process.argv[1]), new FileLocker({ logger: createLogger({ level: 'silent' }) }));
      for (let i = 0; i < 40; i++) await store.remember('team', process.argv[2], process.argv[2] + ' fact ' + i);
    `;
    const run = (who: string) => collectOutput(spawn(process.execPath, ['--input-type=module', '-e', script, dir, who], { stdio: ['ignore', 'pipe', 'pipe'] }));
    const results = await Promise.all([run('alice'), run('bob')]);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const lines = fs
      .readFileSync(path.join(dir, 'memory', 'MEMORY.md'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(lines).toHaveLength(80);
    for (const who of ['alice', 'bob']) for (let i = 0; i < 40; i++) expect(lines).toContain(`- ${who} fact ${i}`);
  });
});
