import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/cli/log-format.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { collectOutput, runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { writeRoster } from '../helpers/team.js';
import { waitFor } from '../helpers/wait.js';

describe('teamd logs', () => {
  it('formats pino lines readably and leaves other lines alone', () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 1, 12, 0, 0), pid: 1, teammate: 'alice', msg: 'lock compromised', taskId: 3 });
    expect(formatLogLine(line)).toMatch(/^2026-01-01 \d\d:00:00\.000 [+-]\d\d:\d\d WARN {2}alice: lock compromised {2}taskId=3$/);
    expect(formatLogLine('plain text')).toBe('plain text');
  });

  it("shows the daemon's and a teammate's log, and --follow streams new lines", async () => {
    const dir = path.join(makeTempDir(), '.team');
    await startDaemon(dir);
    await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
    const daemonLog = await runTeamd(['logs', '--dir', dir]);
    expect(daemonLog.stdout).toMatch(/INFO {2}daemon: daemon ready/);
    const follower = spawn(process.execPath, [TEAMD_BIN, 'logs', '--follow', '--lines', '1', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput(follower);
    let seen = '';
    follower.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    // Its first line (the last one logged) means the follower has fixed where it reads from.
    await waitFor(() => seen.length > 0, 'the follower to print the last line');
    await runTeamd(['spawn', 'bob', 'coder', '--dir', dir]);
    await waitFor(() => seen.includes('bob: teammate started'), 'the follower to show bob starting');
    follower.kill('SIGINT');
    expect((await output).code).toBe(0);
    const aliceLog = await runTeamd(['logs', 'alice', '--dir', dir]);
    expect(aliceLog.stdout).toMatch(/alice: teammate started/);
  });

  it('a name that is neither a teammate nor a log is refused in one line (exit 2); a teammate with no log yet is not', async () => {
    const dir = path.join(makeTempDir(), '.team');
    writeRoster(dir, ['alice']);
    const typo = await runTeamd(['logs', 'alcie', '--dir', dir]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('teamd: no teammate named "alcie" and no log for it (logs: daemon); teamd logs --all shows every one\n');
    const quiet = await runTeamd(['logs', 'alice', '--dir', dir]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toMatch(/^no log yet at .*alice\.log\n$/);
  });

  it('one record to a line: -n 3 prints 3 lines for records whose fields hold 3,000 lines; --full and --json show them whole', async () => {
    const dir = path.join(makeTempDir(), '.team');
    writeRoster(dir, ['alice']);
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    const output = Array.from({ length: 3000 }, (_, i) => `line ${i} of a command's output`).join('\n');
    const records = [1, 2, 3].map((n) =>
      JSON.stringify({ level: 30, time: Date.now() - 1000 + n, pid: 1, teammate: 'alice', msg: 'tool result', taskId: n, output, note: 'x'.repeat(500) }),
    );
    fs.writeFileSync(path.join(dir, 'logs', 'alice.log'), `${records.join('\n')}\n`);
    const short = await runTeamd(['logs', 'alice', '-n', '3', '--dir', dir]);
    expect(short.code, short.stderr).toBe(0);
    const lines = short.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/alice: tool result {2}taskId=\d output=line 0 of a command's output… \[3000 lines, \d+\.\d KB\] note=x{160}… \[500 B\]$/);
      expect(line.length).toBeLessThan(500);
    }
    const full = await runTeamd(['logs', 'alice', '-n', '3', '--full', '--dir', dir]);
    expect(full.stdout.trimEnd().split('\n')).toHaveLength(3 * 3000);
    const json = await runTeamd(['logs', 'alice', '-n', '3', '--json', '--dir', dir]);
    expect(
      json.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { output: string }).output),
    ).toEqual([output, output, output]);
  });

  it('reads from the end: the last lines of a 120 MB log in a process whose heap could not hold it', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    const file = path.join(dir, 'logs', 'daemon.log');
    const block = `${JSON.stringify({ level: 30, time: Date.now(), component: 'daemon', msg: 'filler', pad: 'x'.repeat(200) })}\n`.repeat(4000);
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 120; i++) fs.writeSync(fd, block);
    fs.writeSync(fd, `${JSON.stringify({ level: 50, time: Date.now(), component: 'daemon', msg: 'the last line' })}\n`);
    fs.closeSync(fd);
    expect(fs.statSync(file).size).toBeGreaterThan(100 * 1024 * 1024);
    const shown = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--max-old-space-size=48', TEAMD_BIN, 'logs', '-n', '3', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      void collectOutput(child).then(resolve);
    });
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/ERROR daemon: the last line$/);
  });

  it('-n, --level, --task, --since and --all: filtered from the end of each log and its rotated files, merged in time order', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const logs = path.join(dir, 'logs');
    fs.mkdirSync(logs, { recursive: true });
    const t0 = Date.now() - 3_600_000;
    const line = (at: number, level: number, who: Record<string, string>, msg: string, extra: Record<string, unknown> = {}): string =>
      `${JSON.stringify({ level, time: t0 + at, pid: 1, ...who, msg, ...extra })}\n`;
    // alice's older lines were rotated into alice.log.1.
    fs.writeFileSync(
      path.join(logs, 'alice.log.1'),
      line(1000, 30, { teammate: 'alice' }, 'claimed', { taskId: 4 }) + line(2000, 40, { teammate: 'alice' }, 'tool failed', { taskId: 4 }),
    );
    fs.writeFileSync(
      path.join(logs, 'alice.log'),
      line(5000, 30, { teammate: 'alice' }, 'tool result', { taskId: 5 }) + line(3_500_000, 30, { teammate: 'alice' }, 'recent'),
    );
    fs.writeFileSync(
      path.join(logs, 'daemon.log'),
      line(1500, 30, { component: 'daemon' }, 'teammate started') + line(2500, 50, { component: 'daemon' }, 'teammate exited unexpectedly'),
    );
    const run = async (...args: string[]): Promise<string[]> => {
      const result = await runTeamd([...args, '--dir', dir]);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout
        .trim()
        .split('\n')
        .map((l) => l.replace(/^\S+ \S+ \S+ /, ''));
    };
    expect(await run('logs', 'alice', '--task', '4')).toEqual(['INFO  alice: claimed  taskId=4', 'WARN  alice: tool failed  taskId=4']);
    expect(await run('logs', 'alice', '-n', '2')).toEqual(['INFO  alice: tool result  taskId=5', 'INFO  alice: recent']);
    expect(await run('logs', '--all', '--level', 'warn')).toEqual(['WARN  alice: tool failed  taskId=4', 'ERROR daemon: teammate exited unexpectedly']);
    expect(await run('logs', '--all', '-n', '4')).toEqual([
      'WARN  alice: tool failed  taskId=4',
      'ERROR daemon: teammate exited unexpectedly',
      'INFO  alice: tool result  taskId=5',
      'INFO  alice: recent',
    ]);
    expect(await run('logs', 'alice', '--since', '10m')).toEqual(['INFO  alice: recent']);
    const wrong = await runTeamd(['logs', '--level', 'loud', '--dir', dir]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/expected one of trace, debug, info, warn, error, fatal/);
  });

  it('a teammate killed by SIGKILL is an error in the daemon log, and no line carries the pid key twice', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await startDaemon(dir);
    await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
    const pid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => member(dir, 'alice')?.pid && member(dir, 'alice')?.pid !== pid, 'alice restarted');
    const errors = await runTeamd(['logs', '--level', 'error', '--json', '--dir', dir]);
    const exited = errors.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string; signal: string; teammatePid: number });
    expect(exited).toContainEqual(expect.objectContaining({ level: 50, msg: 'teammate exited unexpectedly', signal: 'SIGKILL', teammatePid: pid }));
    for (const file of ['daemon.log', 'alice.log'])
      for (const raw of fs
        .readFileSync(path.join(dir, 'logs', file), 'utf8')
        .split('\n')
        .filter(Boolean))
        expect(raw.match(/"pid":/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });
});
