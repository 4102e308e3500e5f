import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { Mailbox } from '../../src/store/files/mailbox.js';
import { openBoard } from '../helpers/board.js';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';

function team(): string {
  const root = path.join(makeTempDir(), '.team');
  writeRoster(root, ['alice', 'bob']);
  return root;
}

/** Every file and folder under dir, with its size: what a command left behind. */
function tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((entry) => {
      const stat = fs.statSync(path.join(dir, entry));
      return `${entry} ${stat.isDirectory() ? 'dir' : stat.size}`;
    })
    .sort();
}

/** Runs teamd with its stdout and/or stderr already closed by the reader, as `teamd status | head -0` would. */
function runWithClosedPipe(args: readonly string[], close: 'stdout' | 'stderr'): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TEAMD_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    // Closed before the process has loaded: its first write to it fails with EPIPE.
    child[close].destroy();
    const other = close === 'stdout' ? child.stderr : child.stdout;
    other.on('data', (chunk: Buffer) => (close === 'stdout' ? (stderr += chunk.toString()) : (stdout += chunk.toString())));
    child.on('close', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('the operator CLI', () => {
  it('a reader that went away ends a command quietly with status 0: status, task list, logs, --help; on stdout and on stderr', async () => {
    const dir = team();
    for (let i = 1; i <= 20; i++) expect((await runTeamd(['task', 'add', `task ${i}`, '--dir', dir])).code).toBe(0);
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'logs', 'daemon.log'), `${JSON.stringify({ level: 30, time: Date.now(), msg: 'hello' })}\n`.repeat(2000));
    for (const args of [['status', '--dir', dir], ['task', 'list', '--dir', dir], ['logs', '--dir', dir], ['--help']]) {
      const result = await runWithClosedPipe(args, 'stdout');
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
    // An error message to a closed stderr: no stack anywhere, and the command still ends.
    const failed = await runWithClosedPipe(['status', '--dir', ''], 'stderr');
    expect(failed.stdout).toBe('');
    expect(failed.code).toBe(0);
  });

  it.skipIf(!fs.existsSync('/dev/full'))('output to a full disk (> /dev/full) ends the command with status 1 and one line on stderr saying so', async () => {
    const dir = team();
    expect((await runTeamd(['task', 'add', 'one', '--dir', dir])).code).toBe(0);
    for (const args of [['task', 'list', '--dir', dir], ['status', '--json', '--dir', dir], ['--help']]) {
      const full = fs.openSync('/dev/full', 'w');
      const child = spawn(process.execPath, [TEAMD_BIN, ...args], { stdio: ['ignore', full, 'pipe'] });
      fs.closeSync(full);
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ args, code, stderr }).toEqual({ args, code: 1, stderr: 'teamd: cannot write to standard output (ENOSPC: no space left on device, write)\n' });
    }
    // The command's own work was done: the board still holds the task, whole.
    expect((await runTeamd(['task', 'show', '1', '--json', '--dir', dir])).stdout).toContain('"subject": "one"');
  });

  it('read-only commands write nothing in the state folder; --dir must name a state folder, never a file, never empty', async () => {
    const dir = team();
    expect((await runTeamd(['task', 'add', 'one', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['send', 'alice', 'hi', '--dir', dir])).code).toBe(0);
    const before = tree(dir);
    for (const args of [
      ['status'],
      ['status', '--json'],
      ['team'],
      ['task', 'list'],
      ['task', 'show', '1'],
      ['inbox', 'alice'],
      ['watch', '--once'],
      ['jobs'],
      ['cron', 'list'],
      ['cron', 'list', '--json'],
    ]) {
      const result = await runTeamd([...args, '--dir', dir]);
      expect({ args, code: result.code }).toEqual({ args, code: 0 });
    }
    expect(tree(dir)).toEqual(before);

    const empty = await runTeamd(['status', '--dir', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^teamd: --dir is empty: .+\n$/);
    const file = path.join(makeTempDir(), 'notes.txt');
    fs.writeFileSync(file, 'x');
    for (const args of [
      ['status', '--dir', file],
      ['task', 'add', 'x', '--dir', file],
    ]) {
      const result = await runTeamd(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^teamd: .*notes\.txt is a file, not a state folder.*\n$/);
    }
    // A project folder named by mistake: refused by readers and writers, and left as it was.
    const project = makeTempDir();
    fs.writeFileSync(path.join(project, 'README.md'), '# a project\n');
    for (const args of [['status'], ['task', 'add', 'x']]) {
      const result = await runTeamd([...args, '--dir', project]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/is not a teamd state folder/);
    }
    expect(fs.readdirSync(project)).toEqual(['README.md']);
    // A missing one is created by a command that writes, and it says so once.
    const fresh = path.join(makeTempDir(), 'new-team');
    const created = await runTeamd(['task', 'add', 'first', '--dir', fresh]);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe(`teamd: created the state folder ${fresh}\n`);
    expect((await runTeamd(['task', 'add', 'second', '--dir', fresh])).stderr).toBe('');
  });

  it.runIf(process.getuid?.() === 0)('a read-only state folder: reading works, a change gets one line and exit 1, never a stack', async () => {
    const dir = team();
    expect((await runTeamd(['task', 'add', 'one', '--dir', dir])).code).toBe(0);
    // Owned by nobody, and not writable even by its owner (root would write anyway).
    fs.chmodSync(path.dirname(dir), 0o755);
    for (const entry of ['', ...(fs.readdirSync(dir, { recursive: true }) as string[])]) {
      const file = path.join(dir, entry);
      fs.chownSync(file, 65534, 65534);
      fs.chmodSync(file, fs.statSync(file).isDirectory() ? 0o500 : 0o400);
    }
    const as = { uid: 65534, gid: 65534, cwd: '/' };
    const list = await runTeamd(['task', 'list', '--dir', dir], as);
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/one/);
    expect((await runTeamd(['status', '--dir', dir], as)).code).toBe(0);
    for (const args of [
      ['task', 'add', 'two'],
      ['send', 'alice', 'hi'],
    ]) {
      const result = await runTeamd([...args, '--dir', dir], as);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^teamd: .*permission denied.*\n$/);
    }
  });

  it('--dir and --json are accepted before the command as well as after it', async () => {
    const dir = team();
    expect((await runTeamd(['--dir', dir, 'task', 'add', 'one'])).code).toBe(0);
    const before = await runTeamd(['--dir', dir, '--json', 'task', 'list']);
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout).map((t: { subject: string }) => t.subject)).toEqual(['one']);
    const team2 = await runTeamd(['--json', 'team', '--dir', dir]);
    expect(JSON.parse(team2.stdout).map((m: { name: string }) => m.name)).toEqual(['alice', 'bob']);
  });

  it("the daemon's rules are checked where the input is read: a reserved name, an empty or multi-line role (exit 2, one plain line)", async () => {
    const dir = team();
    for (const [args, rule] of [
      [['spawn', 'lead', 'coder'], /the name "lead" is reserved/],
      [['spawn', 'carol', ''], /a role must not be empty/],
      [['spawn', 'carol', 'a\nb'], /a role is one line/],
      [['spawn', 'carol', 'x'.repeat(65)], /at most 64 characters/],
    ] as const) {
      const result = await runTeamd([...args, '--dir', dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(rule);
      expect(result.stderr).not.toMatch(/"code"|\[\s*\{/);
    }
  });

  it('task add: --description - reads standard input; a subject is one line', async () => {
    const dir = team();
    const added = await runTeamd(['task', 'add', 'write the parser', '--description', '-', '--dir', dir, '--json'], { input: 'step one\nstep two\n' });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).description).toBe('step one\nstep two\n');
    const multi = await runTeamd(['task', 'add', 'first line\nsecond line', '--dir', dir]);
    expect(multi.code).toBe(2);
    expect(multi.stderr).toMatch(/^teamd: the subject is one line of text.*\n$/);
    expect(JSON.parse((await runTeamd(['task', 'list', '--dir', dir, '--json'])).stdout)).toHaveLength(1);
  });

  it('standard input past 16 MiB is refused without being held whole: exit 2, one line, nothing added or sent', async () => {
    const dir = team();
    const flood = 'a'.repeat(20 * 1024 * 1024);
    for (const args of [
      ['task', 'add', 'flooded', '--description', '-'],
      ['send', 'alice', '-'],
    ]) {
      const result = await runTeamd([...args, '--dir', dir], { input: flood });
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toBe('teamd: standard input is over 16777216 bytes: put long text in a file and refer to it\n');
    }
    expect(JSON.parse((await runTeamd(['task', 'list', '--dir', dir, '--json'])).stdout)).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'inbox', 'alice.jsonl'))).toBe(false);
  });

  it('send and broadcast refuse an empty message, a sender not on the team and a protocol type (exit 2, nothing sent)', async () => {
    const dir = team();
    for (const [args, rule] of [
      [['send', 'alice', ''], /the message is empty/],
      [['send', 'alice', '   \n'], /the message is empty/],
      [['send', 'alice', '-'], /standard input was empty/],
      [['broadcast', ''], /the message is empty/],
      [['send', 'alice', 'hi', '--from', 'ghost'], /no teammate named "ghost" to send as/],
      [['send', 'alice', 'hi', '--from', 'alice'], /a message from alice to alice: nobody writes to itself/],
      [['broadcast', 'hi', '--from', 'ghost'], /no teammate named "ghost" to send as/],
      [['send', 'alice', 'done', '--type', 'task_completed'], /task_completed is a protocol message that teamd sends itself/],
      [['send', 'alice', 'ok', '--type', 'plan_approval_response'], /teamd approve <id>/],
    ] as const) {
      const result = await runTeamd([...args, '--dir', dir], { input: '' });
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(rule);
    }
    expect(fs.existsSync(path.join(dir, 'inbox'))).toBe(false);
    const fromBob = await runTeamd(['send', 'alice', 'hi', '--from', 'bob', '--dir', dir]);
    expect(fromBob.code, fromBob.stderr).toBe(0);
  });

  it('a damaged state folder is named in one line, never an unexpected error: folders where files belong, --dir under a file', async () => {
    for (const [damage, args, place] of [
      ['logs/cli.log', ['task', 'add', 'y'], 'logs/cli.log'],
      ['inbox/alice.jsonl', ['send', 'alice', 'hi'], 'inbox/alice.jsonl'],
      ['run/daemon.pid', ['start'], 'run/daemon.pid'],
      ['run/daemon.sock', ['start'], 'run/daemon.sock'],
    ] as const) {
      const dir = team();
      fs.mkdirSync(path.join(dir, damage), { recursive: true });
      const result = await runTeamd([...args, '--dir', dir]);
      expect({ damage, code: result.code }).toEqual({ damage, code: 1 });
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.stderr).toContain(`${path.join(dir, place)} is a folder where teamd keeps a file: move it aside and retry`);
      if (args[0] === 'start') await runTeamd(['stop', '--dir', dir]);
    }
    const underFile = await runTeamd(['status', '--dir', '/etc/passwd/.team']);
    expect(underFile.code).toBe(1);
    expect(underFile.stderr).toBe(
      'teamd: /etc/passwd/.team goes through a file where a folder should be: fix the path (--dir names a state folder) or move the file aside\n',
    );
  });

  it('durations take units: --idle-timeout 2m is 120000 ms; a wrong one is refused with exit 2', async () => {
    const dir = team();
    const wrong = await runTeamd(['start', '--idle-timeout', '5x', '--dir', dir]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/expected a duration such as 30s, 2m/);
    // A reminder in 5 meant 5 ms: a delay must say its unit.
    const bare = await runTeamd(['cron', 'add', 'ping', '--in', '5', '--to', 'alice', '--dir', dir]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("give the duration's unit: 5s, 5m or 5h");
    // help on a command that does not exist is a mistake, not help.
    const help = await runTeamd(['help', 'nonexistent', '--dir', dir]);
    expect(help).toMatchObject({ code: 2, stderr: 'teamd: there is no command named "nonexistent"; teamd help lists them\n' });
    const started = await runTeamd(['start', '--idle-timeout', '2m', '--dir', dir]);
    try {
      expect(started.code, started.stderr).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).settings.idleTimeoutMs).toBe(120_000);
    } finally {
      expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    }
  });

  it('plans: listed while waiting; approve and reject take a unique id prefix, refuse an ambiguous or short one', async () => {
    const dir = team();
    const mailbox = new Mailbox({ paths: statePaths(dir), logger: createLogger() });
    // Each plan is for the claim alice holds (a plan for a claim that is over is closed).
    const { board } = openBoard(dir);
    for (let n = 1; n <= 4; n++) await board.add({ subject: `t${n}` });
    for (const id of [3, 4]) await board.claim(id, 'alice');
    for (const [id, task] of [
      ['abcd1111-0000-4000-8000-000000000001', 3],
      ['abcd2222-0000-4000-8000-000000000002', 4],
    ] as const)
      mailbox.send({
        from: 'alice',
        to: 'lead',
        type: 'plan_approval_request',
        requestId: id,
        content: `plan for ${task}\nstep two`,
        extra: { taskId: task, claim: 1 },
      });
    const listed = await runTeamd(['plans', '--dir', dir]);
    expect(listed.stdout).toMatch(
      /^ID\s+KIND\s+TEAMMATE\s+TASK\s+AGE\s+ANSWER\s+WHAT\nabcd1111\s+plan\s+alice\s+3\s+\d+s\s+waiting\s+plan for 3\nabcd2222\s+plan\s+alice\s+4\s+\d+s\s+waiting\s+plan for 4\n$/,
    );
    const ambiguous = await runTeamd(['approve', 'abcd', '--dir', dir]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/abcd matches 2 requests \(abcd1111 from alice, abcd2222 from alice\): give more of the id/);
    expect((await runTeamd(['approve', 'abc', '--dir', dir])).stderr).toMatch(/give at least 4 characters/);
    expect((await runTeamd(['approve', 'ffff', '--dir', dir])).code).toBe(2);
    const approved = await runTeamd(['approve', 'abcd1', '--dir', dir]);
    expect(approved.stdout).toBe("approved alice's plan abcd1111 for task 3\n");
    const pending = JSON.parse((await runTeamd(['plans', '--dir', dir, '--json'])).stdout) as { requestId: string }[];
    expect(pending.map((p) => p.requestId)).toEqual(['abcd2222-0000-4000-8000-000000000002']);
    const all = JSON.parse((await runTeamd(['plans', '--all', '--dir', dir, '--json'])).stdout) as { answer: { approve: boolean } | null }[];
    expect(all.map((p) => p.answer?.approve ?? null)).toEqual([true, null]);
  });

  it("the lead has a read position: inbox lead --unread shows what is new since the last --unread, and --unread on a teammate's never moves theirs", async () => {
    const dir = team();
    await runTeamd(['send', 'lead', 'one', '--from', 'alice', '--dir', dir]);
    await runTeamd(['send', 'lead', 'two', '--from', 'bob', '--dir', dir]);
    expect((await runTeamd(['inbox', 'lead', '--unread', '--dir', dir])).stdout).toMatch(/one[\s\S]*two/);
    expect((await runTeamd(['inbox', 'lead', '--unread', '--dir', dir])).stdout).toBe('no unread messages for lead\n');
    await runTeamd(['send', 'lead', 'three', '--from', 'alice', '--dir', dir]);
    const fresh = await runTeamd(['inbox', 'lead', '--unread', '--dir', dir]);
    expect(fresh.stdout).toMatch(/three/);
    expect(fresh.stdout).not.toMatch(/one|two/);
    // The whole inbox is still there without --unread.
    expect((await runTeamd(['inbox', 'lead', '--dir', dir])).stdout).toMatch(/one[\s\S]*two[\s\S]*three/);
    await runTeamd(['send', 'alice', 'hello', '--dir', dir]);
    for (let i = 0; i < 2; i++) expect((await runTeamd(['inbox', 'alice', '--unread', '--dir', dir])).stdout).toMatch(/hello/);
  });

  it('status: uptime, model, restarts and last exit; "needs you" lists failed tasks, plans waiting, corrupt files; a corrupt roster still shows the rest, then exit 1', async () => {
    const dir = team();
    const paths = statePaths(dir);
    const config = JSON.parse(fs.readFileSync(paths.config, 'utf8'));
    config.members[0] = { ...config.members[0], restarts: 2, lastExit: 'killed by SIGKILL', model: 'offline' };
    fs.writeFileSync(paths.config, JSON.stringify(config));
    expect((await runTeamd(['task', 'add', 'doomed', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['task', 'claim', '1', '--owner', 'alice', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['task', 'fail', '1', '--owner', 'alice', '--claim', '1', '--reason', 'the build is broken\nmore detail', '--dir', dir])).code).toBe(
      0,
    );
    expect((await runTeamd(['task', 'add', 'careful', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['task', 'claim', '2', '--owner', 'bob', '--dir', dir])).code).toBe(0);
    new Mailbox({ paths, logger: createLogger() }).send({
      from: 'bob',
      to: 'lead',
      type: 'plan_approval_request',
      content: 'my plan',
      extra: { taskId: 2, claim: 1 },
    });
    new Mailbox({ paths, logger: createLogger() }).send({
      from: 'alice',
      to: 'lead',
      type: 'permission_request',
      content: 'may I',
      extra: { tool: 'bash', input: {} },
    });
    fs.writeFileSync(path.join(paths.tasksDir, 'task_9.json'), '{"id": 9, "subject": ');
    const text = await runTeamd(['status', '--dir', dir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^NAME\s+ROLE\s+STATUS\s+PID\s+TASK\s+MODEL\s+UP\s+RESTARTS\s+LAST-EXIT\s/m);
    expect(text.stdout).toMatch(/^alice\s+\S+\s+\S+\s+-\s+-\s+offline\s+-\s+2\s+killed by SIGKILL\s/m);
    expect(text.stdout).toMatch(/^tokens: 0 in, 0 out/m);
    const needs = text.stdout.slice(text.stdout.indexOf('needs you:'));
    expect(needs).toMatch(/task_9\.json: /);
    expect(needs).toMatch(/task 1 failed \(alice\): the build is broken \(teamd task show 1\)/);
    expect(needs).toMatch(/bob waits for your answer to plan [0-9a-f]{8} \(task 2\), \d+s old: teamd plans/);
    // A permission request is called one, not a plan.
    expect(needs).toMatch(/alice waits for your answer to permission request [0-9a-f]{8}, \d+s old: teamd plans/);
    const json = JSON.parse((await runTeamd(['status', '--dir', dir, '--json'])).stdout);
    expect(json).toMatchObject({ daemon: null, plansWaiting: 2, tokens: { input: 0, output: 0 } });
    expect(json.members[0]).toMatchObject({ name: 'alice', model: 'offline', restarts: 2, lastExit: 'killed by SIGKILL' });

    fs.writeFileSync(paths.config, '{"members": [');
    const broken = await runTeamd(['status', '--dir', dir]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^tasks: {2}0 pending, 1 in_progress, 0 completed, 1 failed/m);
    expect(broken.stdout).toMatch(/needs you:[\s\S]*config\.json is not valid JSON/);
    expect(broken.stderr).toMatch(/^teamd: .*config\.json is not valid JSON.*\n$/);
  });
});
