import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { openBoard } from '../helpers/board.js';
import { bashPermissionAsker, writeRoster } from '../helpers/team.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { waitFor } from '../helpers/wait.js';

const ESC = String.fromCharCode(27);
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
/**
 * A tmux server of this file's own: on the shared default one, a session started just as the
 * server exits (its last session killed by another test) fails with "server exited unexpectedly".
 */
const TMUX_NAME = `teamd-test-${process.pid}`;
const TMUX = ['-L', TMUX_NAME];
// Kept up between tests (exit-empty off): a new session never meets this server exiting either.
beforeAll(() => {
  if (hasTmux) execFileSync('tmux', [...TMUX, 'start-server', ';', 'set-option', '-g', 'exit-empty', 'off']);
});
afterAll(() => {
  if (!hasTmux) return;
  spawnSync('tmux', [...TMUX, 'kill-server']);
  fs.rmSync(path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, TMUX_NAME), { force: true });
});

function capture(session: string): string {
  return execFileSync('tmux', [...TMUX, 'capture-pane', '-p', '-t', session], { encoding: 'utf8' });
}

describe('teamd watch', () => {
  it('--once prints one frame: team, board, messages', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await runTeamd(['task', 'add', 'first task', '--dir', dir]);
    await runTeamd(['send', 'lead', 'hello lead', '--dir', dir]);
    const result = await runTeamd(['watch', '--once', '--dir', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/daemon not running/);
    expect(result.stdout).toMatch(/BOARD {2}1 pending/);
    expect(result.stdout).toMatch(/1 pending +first task +ready/);
    expect(result.stdout).toMatch(/lead -> lead: hello lead/);
  });

  it('--json gives its members in the shape status --json does, each with its plan', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ members: [{ name: 'alice', role: 'coder', status: 'working', pid: 999_999, task: 1, restarts: 2 }], settings: { model: 'offline' } }),
    );
    const plan = { items: [{ content: 'run the tests', status: 'in_progress', activeForm: 'Running the tests' }], updatedAt: new Date().toISOString() };
    fs.writeFileSync(path.join(dir, 'sessions', 'alice.todos.json'), JSON.stringify(plan));
    const watch = JSON.parse((await runTeamd(['watch', '--json', '--dir', dir])).stdout) as { members: unknown[] };
    const status = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { members: unknown[] };
    expect(watch.members).toEqual(status.members);
    // With the daemon gone and its process too, alice is shown as stopped, with her plan.
    expect(watch.members).toEqual([expect.objectContaining({ name: 'alice', status: 'stopped', pid: null, restarts: 2, todos: plan.items })]);
  });

  it('--once with a corrupt config.json shows the board and the error, and exits 1', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await runTeamd(['task', 'add', 'still shown', '--dir', dir]);
    fs.writeFileSync(path.join(dir, 'config.json'), '{"members": [');
    const result = await runTeamd(['watch', '--once', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/config\.json is not valid JSON/);
    expect(result.stdout).not.toMatch(/no teammates yet/);
    expect(result.stdout).toMatch(/still shown/);
    expect(result.stderr).toMatch(/^teamd: .*config\.json is not valid JSON.*\n$/);
  });

  it.runIf(hasTmux)('in a terminal: redraws when a task is added, and q restores the terminal', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await runTeamd(['task', 'add', 'already there', '--dir', dir]);
    const session = `teamd-watch-${process.pid}-${Date.now()}`;
    const command = `${process.execPath} ${TEAMD_BIN} watch --dir ${dir}; echo WATCH-EXITED; sleep 30`;
    execFileSync('tmux', [...TMUX, 'new-session', '-d', '-s', session, '-x', '120', '-y', '40', command]);
    try {
      await waitFor(() => capture(session).includes('already there'), 'the first frame');
      await runTeamd(['task', 'add', 'added while watching', '--dir', dir]);
      await waitFor(() => capture(session).includes('added while watching'), 'a redraw with the new task');
      execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, 'q']);
      const screen = await waitFor(() => {
        const text = capture(session);
        return text.includes('WATCH-EXITED') ? text : undefined;
      }, 'watch to exit');
      // Back on the normal screen: the live view (alternate screen) is gone.
      expect(screen).not.toContain('BOARD');
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
    }
  });

  it.runIf(hasTmux)(
    'fits any terminal: at 80x24 and 50x15, with emoji and CJK subjects, no line is wider than the screen, no frame taller, the failed task first',
    async () => {
      const dir = path.join(makeTempDir(), '.team');
      const subjects = [
        '修复登录页面的错误 🐛🔥 并且更新所有的测试用例以及文档',
        'Add a --version flag 👍🏽 to the CLI and document it in the README file',
        'Family 👨‍👩‍👧 and ❤️ hearts, 🇫🇷 flags, é and 한국어 텍스트 in one long subject line',
        ...Array.from({ length: 30 }, (_, i) => `filler task ${i + 1} with a subject long enough to be cut on a narrow screen`),
      ];
      for (const subject of subjects) expect((await runTeamd(['task', 'add', subject, '--dir', dir])).code).toBe(0);
      // The last task fails: it must not hide under "… N more".
      const last = subjects.length;
      await runTeamd(['task', 'claim', String(last), '--owner', 'alice', '--dir', dir]);
      await runTeamd(['task', 'fail', String(last), '--owner', 'alice', '--claim', '1', '--reason', 'broken 💥', '--dir', dir]);
      await runTeamd(['send', 'lead', '进度报告：一切顺利 ✅ and a long English tail that goes past the edge of any screen', '--dir', dir]);
      for (const [width, height] of [
        [80, 24],
        [50, 15],
      ] as const) {
        const session = `teamd-fit-${process.pid}-${width}`;
        execFileSync('tmux', [
          ...TMUX,
          'new-session',
          '-d',
          '-s',
          session,
          '-x',
          String(width),
          '-y',
          String(height),
          `${process.execPath} ${TEAMD_BIN} watch --dir ${dir}`,
        ]);
        try {
          const screen = await waitFor(() => {
            const text = capture(session);
            return text.includes('MESSAGES') && text.includes('teamd daemon') ? text : undefined;
          }, `the first frame at ${width}x${height}`);
          const rows = screen.replace(/\n$/, '').split('\n');
          expect(rows.length).toBeLessThanOrEqual(height);
          // The header is still on screen: nothing wrapped and scrolled it away.
          expect(rows[0]).toMatch(/^teamd daemon not running/);
          for (const row of rows) expect({ row, width: stringWidth(row) }).toEqual({ row, width: Math.min(stringWidth(row), width) });
          expect(rows.find((row) => /^\s+\d+ failed /.test(row))).toMatch(new RegExp(`^\\s+${last} failed `));
          expect(screen).toMatch(/… \d+ more tasks/);
        } finally {
          spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
        }
      }
    },
  );

  it.runIf(hasTmux)('at 80x24, a team of 20 beside 100 tasks: the board yields, and every teammate that needs a look is listed, first', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(dir, { recursive: true });
    const look = ['errored', 'crashed', 'budget', 'waiting-permission', 'waiting-plan', 'errored'];
    const members = Array.from({ length: 20 }, (_, i) => ({ name: `mate-${String(i).padStart(2, '0')}`, role: 'coder', status: 'idle' }));
    // The ones that need a look are at the end of the roster, where a cut list would lose them.
    for (const [i, status] of look.entries()) members[14 + i]!.status = status;
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ members }));
    const { board } = openBoard(dir);
    for (let i = 0; i < 100; i++) await board.add({ subject: `task ${i + 1}` });
    const session = `teamd-team-${process.pid}`;
    execFileSync('tmux', [...TMUX, 'new-session', '-d', '-s', session, '-x', '80', '-y', '24', `${process.execPath} ${TEAMD_BIN} watch --dir ${dir}`]);
    try {
      const screen = await waitFor(() => {
        const text = capture(session);
        return text.includes('MESSAGES') ? text : undefined;
      }, 'the first frame');
      const rows = screen.replace(/\n$/, '').split('\n');
      expect(rows.length).toBeLessThanOrEqual(24);
      const team = rows.slice(
        rows.findIndex((row) => row.startsWith('TEAM')) + 1,
        rows.findIndex((row) => row.startsWith('BOARD')),
      );
      for (const name of members.slice(14).map((m) => m.name))
        expect(
          team.some((row) => row.includes(name)),
          `${name} on the screen`,
        ).toBe(true);
      // Needing a look, they come first.
      expect(team.slice(0, look.length).every((row) => members.slice(14).some((m) => row.includes(m.name)))).toBe(true);
      expect(screen).toMatch(/… \d+ more tasks/);
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
    }
  });

  it.runIf(hasTmux)('at 80x24, a team of 100: n and p (and PgDn, PgUp) page through every member, those who need a look on the first page', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(dir, { recursive: true });
    const members = Array.from({ length: 100 }, (_, i) => ({ name: `mate-${String(i).padStart(3, '0')}`, role: 'coder', status: 'idle' }));
    members[97]!.status = 'crashed';
    members[98]!.status = 'waiting-plan';
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ members }));
    const session = `teamd-pages-${process.pid}`;
    execFileSync('tmux', [...TMUX, 'new-session', '-d', '-s', session, '-x', '80', '-y', '24', `${process.execPath} ${TEAMD_BIN} watch --dir ${dir}`]);
    const teamRows = (screen: string): string[] => {
      const rows = screen.split('\n');
      return rows.slice(
        rows.findIndex((row) => row.startsWith('TEAM')) + 1,
        rows.findIndex((row) => row.startsWith('BOARD')),
      );
    };
    const page = (n: number) =>
      waitFor(() => {
        const text = capture(session);
        return new RegExp(`page ${n}/\\d+, teammates \\d+-\\d+ of 100`).test(text) ? text : undefined;
      }, `page ${n} of the team`);
    try {
      const first = await page(1);
      expect(first.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(24);
      const pages = Number(/page 1\/(\d+)/.exec(first)![1]);
      expect(pages).toBeGreaterThan(1);
      expect(
        teamRows(first)
          .slice(0, 2)
          .map((row) => row.trim().split(/\s+/)[0]),
      ).toEqual(['mate-097', 'mate-098']);
      const seen = new Set<string>();
      const collect = (screen: string) => {
        for (const row of teamRows(screen)) if (/^\s+mate-\d{3}\s/.test(row)) seen.add(row.trim().split(/\s+/)[0]!);
      };
      collect(first);
      for (let n = 2; n <= pages; n++) {
        execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, n % 2 === 0 ? 'n' : 'NPage']);
        const screen = await page(n);
        expect(screen).toMatch(/ of 100 \(2 elsewhere need a look\)/);
        collect(screen);
      }
      expect(seen.size).toBe(100);
      // Past the last page comes the first again; before the first, the last.
      execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, 'n']);
      await page(1);
      execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, 'PPage']);
      await page(pages);
      execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, 'p']);
      await page(pages - 1);
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
    }
  });

  it.runIf(hasTmux)('requests waiting for the person are at the top with their ids; a approves the first, r rejects the next', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const paths = writeRoster(dir, ['alice', 'bob']);
    const ask = bashPermissionAsker(paths, 3);
    const first = ask('alice', 'npm run build');
    const second = ask('bob', 'git push');
    const session = `teamd-asks-${process.pid}`;
    execFileSync('tmux', [...TMUX, 'new-session', '-d', '-s', session, '-x', '100', '-y', '30', `${process.execPath} ${TEAMD_BIN} watch --dir ${dir}`]);
    const answers = (name: string) => readInboxFrom(paths.inboxFile(name), 0).messages.map(({ message }) => [message.type, message.requestId, message.approve]);
    try {
      const screen = await waitFor(() => {
        const text = capture(session);
        return text.includes('MESSAGES') ? text : undefined;
      }, 'the first frame');
      const rows = screen.split('\n');
      expect(rows[1]).toMatch(/^NEEDS YOUR ANSWER {2}2 waiting: a approves the first, r rejects it/);
      expect(rows[2]).toContain(`${first.requestId!.slice(0, 8)} alice runs bash: npm run build  task 3`);
      expect(rows[3]).toContain(`${second.requestId!.slice(0, 8)} bob runs bash: git push`);
      execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, 'a']);
      await waitFor(() => answers('alice').length === 1 || null, "alice's answer");
      expect(answers('alice')).toEqual([['permission_response', first.requestId, true]]);
      await waitFor(() => capture(session).split('\n')[1]?.includes('1 waiting') || null, 'the next request first');
      execFileSync('tmux', [...TMUX, 'send-keys', '-t', session, 'r']);
      await waitFor(() => answers('bob').length === 1 || null, "bob's answer");
      expect(answers('bob')).toEqual([['permission_response', second.requestId, false]]);
      await waitFor(() => (capture(session).includes('NEEDS YOUR ANSWER') ? null : true), 'nothing left to answer');
    } finally {
      spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
    }
  });

  it.runIf(hasTmux)('NO_COLOR turns colours off; without it, statuses are coloured', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await runTeamd(['task', 'add', 'one', '--dir', dir]);
    for (const noColor of ['1', '']) {
      const session = `teamd-color-${process.pid}-${noColor || 'none'}`;
      execFileSync('tmux', [
        ...TMUX,
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        '100',
        '-y',
        '30',
        `env NO_COLOR=${noColor} ${process.execPath} ${TEAMD_BIN} watch --dir ${dir}`,
      ]);
      try {
        const screen = await waitFor(() => {
          const text = execFileSync('tmux', [...TMUX, 'capture-pane', '-p', '-e', '-t', session], { encoding: 'utf8' });
          return text.includes('MESSAGES') ? text : undefined;
        }, 'a frame');
        const colored = ['31', '32', '33'].some((code) => screen.includes(`${ESC}[${code}m`));
        expect(colored).toBe(!noColor);
      } finally {
        spawnSync('tmux', [...TMUX, 'kill-session', '-t', session]);
      }
    }
  });

  it('repaints only what changed on the screen: a burst of rewrites of a task file changes nothing shown; a new message, its lines alone', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await runTeamd(['task', 'add', 'stays the same', '--dir', dir]);
    const task = path.join(dir, 'tasks', 'task_1.json');
    const content = fs.readFileSync(task);
    // A real terminal (script gives it a pty); its output is what a terminal would receive.
    const child = spawn('script', ['-q', '-e', '-c', `stty cols 100 rows 30; exec ${process.execPath} ${TEAMD_BIN} watch --dir ${dir}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const redraws = (): number => output.split('\x1b[H\x1b[2J').length - 1;
    try {
      await waitFor(() => output.includes('stays the same'), 'the first frame');
      const first = output.length;
      for (let i = 0; i < 50; i++) {
        fs.writeFileSync(`${task}.tmp`, content);
        fs.renameSync(`${task}.tmp`, task);
      }
      // Then one visible change: once it is drawn, every rewrite before it was seen too.
      await runTeamd(['send', 'lead', 'a visible change', '--dir', dir]);
      await waitFor(() => output.includes('a visible change'), 'the visible change drawn');
      // One whole frame; the change repainted alone: the lines that did not change are not sent again.
      expect(redraws()).toBe(1);
      const after = output.slice(first);
      expect(after).toContain('a visible change');
      expect(after).not.toContain('stays the same');
      expect(after).not.toContain('\x1b[2J');
    } finally {
      child.stdin.end('q');
      child.kill('SIGTERM');
    }
  });
});
