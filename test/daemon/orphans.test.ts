import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/proc/pid-file.js';
import { openBoard } from '../helpers/board.js';
import { livePids, member, startDaemon } from '../helpers/daemon.js';
import { processesRunning, runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

describe('no orphan, no double run', () => {
  for (const sandbox of ['required', 'off'] as const) {
    it(`a daemon killed -9 mid-command, restarted and stopped leaves no process and runs the command at most once more (sandbox ${sandbox})`, async () => {
      const ws = makeTempDir('teamd-ws-');
      const dir = path.join(ws, '.team');
      const { board } = openBoard(dir);
      const marker = sandbox === 'off' ? 'sleep 31341' : 'sleep 31340';
      await board.add({ subject: 'slow', description: sh('echo started >> runs.log', `${marker} & wait`, 'echo finished >> runs.log') });
      const first = await startDaemon(dir, { settings: { idleTimeoutMs: 0, sandbox } });
      expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
      await waitFor(() => processesRunning(marker).length > 0, 'the slow command running');
      const worker = member(dir, 'alice')!.pid!;
      process.kill(first.pid, 'SIGKILL');
      await waitFor(() => !isAlive(worker) && processesRunning(marker).length === 0, 'the teammate and its command gone with the daemon', 10_000);

      await startDaemon(dir, { settings: { idleTimeoutMs: 0, sandbox } });
      await waitFor(() => member(dir, 'alice')?.status === 'working' || board.get(1).status !== 'in_progress', 'alice back on the task');
      expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
      expect(processesRunning(marker)).toEqual([]);
      expect(livePids(dir)).toEqual([]);
      const runs = fs
        .readFileSync(path.join(ws, 'runs.log'), 'utf8')
        .split('\n')
        .filter((line) => line === 'started');
      expect(runs.length).toBeLessThanOrEqual(2);
    });
  }
});
