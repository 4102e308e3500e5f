import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

function capture(session: string): string {
  return execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
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

  it.runIf(hasTmux)('in a terminal: redraws when a task is added, and q restores the terminal', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await runTeamd(['task', 'add', 'already there', '--dir', dir]);
    const session = `teamd-watch-${process.pid}-${Date.now()}`;
    const command = `${process.execPath} ${TEAMD_BIN} watch --dir ${dir}; echo WATCH-EXITED; sleep 30`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '120', '-y', '40', command]);
    try {
      await waitFor(() => capture(session).includes('already there'), 'the first frame');
      await runTeamd(['task', 'add', 'added while watching', '--dir', dir]);
      await waitFor(() => capture(session).includes('added while watching'), 'a redraw with the new task');
      execFileSync('tmux', ['send-keys', '-t', session, 'q']);
      const screen = await waitFor(() => {
        const text = capture(session);
        return text.includes('WATCH-EXITED') ? text : undefined;
      }, 'watch to exit');
      // Back on the normal screen: the live view (alternate screen) is gone.
      expect(screen).not.toContain('BOARD');
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
