import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { createLogger } from '../../src/log/logger.js';
import { PermissionAsker } from '../../src/permissions/permission-asker.js';
import { runTeamd } from '../helpers/processes.js';
import { writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { openMailStore } from '../helpers/board.js';

describe('asking the lead, with adversarial input', () => {
  it('a call whose input is megabytes (a whole file) still reaches the lead, bounded, and the wait ends at its timeout with the default', async () => {
    const paths = writeRoster(path.join(makeTempDir(), '.team'), ['alice']);
    const statuses: boolean[] = [];
    const asker = new PermissionAsker({
      name: 'alice',
      paths,
      mailbox: openMailStore(paths),
      verifyGrant: () => false,
      // No doorbell in this test: the wait ends at its deadline.
      waitForInbox: (signal, ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 50))),
      waiting: (on) => statuses.push(on),
      logger: createLogger(),
    });
    const content = 'x'.repeat(3 * 1024 * 1024);
    const answer = await asker.ask(
      { tool: 'write_file', input: { path: 'big.txt', content }, taskId: 7, why: 'asks' },
      200,
      'deny',
      new AbortController().signal,
    );
    expect(answer).toMatchObject({ allow: false, by: 'timeout' });
    expect(statuses).toEqual([true, false]);
    const [request] = readInboxFrom(paths.inboxFile('lead'), 0).messages.map(
      (m) => m.message as unknown as { type: string; input: { path: string; content: string }; taskId: number },
    );
    expect(request).toMatchObject({ type: 'permission_request', taskId: 7, input: { path: 'big.txt' } });
    expect(request!.input.content.length).toBeLessThan(1000);
  });

  it('a settings file over 1 MiB is refused with a clear error', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { allow: Array.from({ length: 60_000 }, (_, i) => `Bash(echo ${i})`) } }));
    const result = await runTeamd(['check-settings', '--dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/settings\.json is \d+ bytes; a settings file is at most 1048576 bytes/);
  });
});
