import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLiveDaemon } from '../../src/proc/pid-file.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { LEAD } from '../../src/contracts/roster.js';
import { apiStandIn } from '../helpers/api-stand-in.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

describe('a teammate while the roster is damaged', () => {
  it('alice works her task on with the budgets she read last, while the daemon (stopped) cannot mend the roster, and is never restarted', async () => {
    // The model is the stand-in, not the daemon's: it answers while the daemon is stopped.
    const { dir, board, env } = await apiStandIn();
    await startDaemon(dir, { env, settings: { idleTimeoutMs: 0, recheckMs: 300 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir])).code).toBe(0);
    await waitFor(() => member(dir, 'alice')?.status === 'idle', 'alice idle');
    const paths = statePaths(dir);
    const daemon = readLiveDaemon(paths)!;
    process.kill(daemon.pid, 'SIGSTOP');
    try {
      // Valid JSON, not a roster: every read of it is refused until the daemon writes its own.
      fs.writeFileSync(paths.config, JSON.stringify({ members: [{ name: 'alice' }] }));
      await board.add({ subject: 'work on', description: '```sh\necho one\necho two\n```' });
      // Each of her model calls checks her budgets against the roster first.
      await waitFor(() => board.get(1).status === 'completed', 'the task done by alice with the roster damaged');
    } finally {
      process.kill(daemon.pid, 'SIGCONT');
    }
    const log = fs.readFileSync(paths.logFile('alice'), 'utf8');
    expect(log).toContain('the roster cannot be read; going on with the one read last until it can');
    expect(log).not.toContain('teammate failed');
    // The daemon, running again, moves the damaged file aside and writes its own roster.
    const alice = await waitFor(() => {
      try {
        return member(dir, 'alice');
      } catch {
        return undefined;
      }
    }, 'the roster mended by the daemon');
    expect(alice.restarts).toBe(0);
    expect(readInboxFrom(paths.inboxFile(LEAD), 0).messages.filter((m) => m.message.type === 'teammate_crashed')).toEqual([]);
  });
});
