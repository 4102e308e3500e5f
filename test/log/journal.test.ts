import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalLine } from '../../src/log/journal.js';
import { runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/** A foreground daemon whose stdout is a file; `journal`: JOURNAL_STREAM names that file, as systemd names the journal's stream. */
async function foreground(journal: boolean): Promise<string[]> {
  const ws = makeTempDir('teamd-journal-');
  const dir = path.join(ws, '.team');
  const out = path.join(ws, 'stdout');
  const fd = fs.openSync(out, 'w');
  const stat = fs.fstatSync(fd);
  const env = { ...process.env, JOURNAL_STREAM: journal ? `${stat.dev}:${stat.ino}` : '' };
  const daemon = spawn(process.execPath, [TEAMD_BIN, 'start', '--foreground', '--dir', dir], { stdio: ['ignore', fd, 'ignore'], env });
  fs.closeSync(fd);
  const exited = new Promise((resolve) => daemon.once('close', resolve));
  await waitFor(() => fs.readFileSync(out, 'utf8').includes('daemon ready') || null, 'the daemon ready');
  expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  await exited;
  return fs.readFileSync(out, 'utf8').trimEnd().split('\n');
}

describe('the journal', () => {
  it('a foreground daemon whose stdout is the journal writes each line after its syslog priority; to any other pipe, the JSON alone', async () => {
    const journal = await foreground(true);
    expect(journal.length).toBeGreaterThan(2);
    for (const line of journal) expect(line).toMatch(/^<[2-7]>\{"level":\d+/);
    expect(journal.find((line) => line.includes('"daemon ready"'))).toMatch(/^<6>\{"level":30,/);
    const plain = await foreground(false);
    for (const line of plain) expect(line).toMatch(/^\{"level":\d+/);
  });

  it('maps pino levels to syslog priorities', () => {
    expect([10, 20, 30, 40, 50, 60].map((level) => journalLine(`{"level":${level},"msg":"x"}`).slice(0, 3))).toEqual([
      '<7>',
      '<7>',
      '<6>',
      '<4>',
      '<3>',
      '<2>',
    ]);
  });
});
