import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { collectOutput, runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function team(): string {
  const root = path.join(makeTempDir(), '.team');
  writeRoster(root, ['alice', 'bob']);
  return root;
}

describe('teamd send / broadcast / inbox (real CLI)', () => {
  it('sends from the lead by default and reads an inbox, as text and JSON', async () => {
    const dir = team();
    const sent = await runTeamd(['send', 'alice', 'please review', '--dir', dir, '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ from: 'lead', to: 'alice', type: 'message', content: 'please review' });
    await runTeamd(['send', 'alice', 'line one\nline two', '--from', 'bob', '--dir', dir]);
    const text = await runTeamd(['inbox', 'alice', '--dir', dir]);
    expect(text.stdout).toMatch(/lead -> alice: please review\n/);
    expect(text.stdout).toMatch(/bob -> alice: line one\n {4}line two\n/);
    const json = JSON.parse((await runTeamd(['inbox', 'alice', '--dir', dir, '--json'])).stdout);
    expect(json.map((m: { content: string }) => m.content)).toEqual(['please review', 'line one\nline two']);
  });

  it("a message's escape sequences are shown, not obeyed: written out as \\u00NN, and JSON output still reads back as sent", async () => {
    const dir = team();
    // What a teammate's model could send the lead: retitle the window, clear the screen, hide the rest of the line.
    const content = 'done \x1b]0;pwned\x07\x1b[2J\rall good\tok\x9b';
    expect((await runTeamd(['send', 'lead', content, '--from', 'alice', '--dir', dir])).code).toBe(0);
    const text = await runTeamd(['inbox', 'lead', '--dir', dir]);
    expect(text.stdout).toContain('alice -> lead: done \\u001b]0;pwned\\u0007\\u001b[2J\\u000dall good\tok\\u009b\n');
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(text.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    const json = await runTeamd(['inbox', 'lead', '--dir', dir, '--json']);
    // eslint-disable-next-line no-control-regex -- nor in JSON
    expect(json.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(JSON.parse(json.stdout).map((m: { content: string }) => m.content)).toEqual([content]);
  });

  it('refuses an unknown recipient (exit 2, names it) and creates no mailbox', async () => {
    const dir = team();
    const result = await runTeamd(['send', 'alcie', 'hi', '--dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no teammate named "alcie"');
    expect(fs.existsSync(path.join(dir, 'inbox', 'alcie.jsonl'))).toBe(false);
    const tricky = await runTeamd(['send', '../../x', 'hi', '--dir', dir]);
    expect(tricky.code).toBe(2);
    expect(fs.existsSync(path.join(dir, 'inbox'))).toBe(false);
  });

  it('reads content from stdin with -, and refuses oversized content with exit 2', async () => {
    const dir = team();
    const result = await runTeamd(['send', 'alice', '-', '--dir', dir], { input: 'x'.repeat(300 * 1024) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/limit is 262144/);
    expect(fs.existsSync(path.join(dir, 'inbox', 'alice.jsonl'))).toBe(false);
    const fromStdin = await runTeamd(['send', 'alice', '-', '--dir', dir, '--json'], { input: 'from a pipe\n' });
    expect(JSON.parse(fromStdin.stdout).content).toBe('from a pipe\n');
  });

  it('broadcast reaches everyone but the sender', async () => {
    const dir = team();
    const result = await runTeamd(['broadcast', 'standup in 5', '--from', 'alice', '--dir', dir, '--json']);
    expect(JSON.parse(result.stdout).map((m: { to: string }) => m.to)).toEqual(['lead', 'bob']);
  });

  it("inbox --unread shows what lies past the owner's cursor and never moves it", async () => {
    const dir = team();
    await runTeamd(['send', 'alice', 'old', '--dir', dir]);
    const { InboxConsumer } = await import('../../src/store/files/consumer.js');
    const { createLogger } = await import('../../src/log/logger.js');
    const { statePaths } = await import('../../src/paths.js');
    const consumer = new InboxConsumer({ paths: statePaths(dir), name: 'alice', logger: createLogger() });
    consumer.commit(consumer.read());
    const cursorBefore = fs.readFileSync(path.join(dir, 'cursors', 'alice.json'), 'utf8');
    await runTeamd(['send', 'alice', 'new', '--dir', dir]);
    const unread = JSON.parse((await runTeamd(['inbox', 'alice', '--unread', '--dir', dir, '--json'])).stdout);
    expect(unread.map((m: { content: string }) => m.content)).toEqual(['new']);
    expect(fs.readFileSync(path.join(dir, 'cursors', 'alice.json'), 'utf8')).toBe(cursorBefore);
  });

  it('inbox --follow streams messages as they arrive, and Ctrl-C ends it cleanly', async () => {
    const dir = team();
    await runTeamd(['send', 'lead', 'backlog', '--from', 'alice', '--dir', dir]);
    const follower = spawn(process.execPath, [TEAMD_BIN, 'inbox', 'lead', '--follow', '--json', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput(follower);
    const lines: string[] = [];
    let buffer = '';
    let notify = (): void => {};
    follower.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      lines.push(...parts);
      notify();
    });
    const seen = async (count: number): Promise<void> => {
      while (lines.length < count) await new Promise<void>((resolve) => (notify = resolve));
    };
    await seen(1);
    await runTeamd(['send', 'lead', 'live one', '--from', 'bob', '--dir', dir]);
    await runTeamd(['send', 'lead', 'live two', '--from', 'alice', '--dir', dir]);
    await seen(3);
    follower.kill('SIGINT');
    const result = await output;
    expect(result.code).toBe(0);
    expect(lines.map((line) => JSON.parse(line).content)).toEqual(['backlog', 'live one', 'live two']);
  });
});
