import { Command } from 'commander';
import { Doorbell } from '../../watch/doorbell.js';
import { openContext } from '../context.js';
import { printJson, type Io } from '../output.js';
import { renderFrame } from '../watch/render.js';
import { takeSnapshot } from '../watch/snapshot.js';
import { withCommonOptions, type CommonOptions } from './common.js';

const ALT_SCREEN_ON = '\x1b[?1049h\x1b[?25l';
const ALT_SCREEN_OFF = '\x1b[?25h\x1b[?1049l';
const CLEAR = '\x1b[H\x1b[2J';

export function watchCommand(io: Io): Command {
  return withCommonOptions(
    new Command('watch').description('a live view of the team, the board and the latest messages; redrawn on file changes (q or Ctrl-C quits)'),
  )
    .option('--once', 'print one frame and exit (no terminal control)')
    .action(async (options: CommonOptions & { once?: boolean }) => {
      const { paths, board, logger } = openContext(io, options.dir, 'read');
      const out = process.stdout;
      if (options.json) {
        printJson(io, takeSnapshot(paths, board, 10));
        return;
      }
      const interactive = !options.once && out.isTTY === true;
      const frame = (): string =>
        renderFrame(takeSnapshot(paths, board, interactive ? Math.max(3, (out.rows ?? 40) - 30) : 10), {
          width: out.columns ?? 100,
          height: out.rows ?? 40,
          dir: paths.root,
          color: interactive,
        });
      if (!interactive) {
        io.out(frame());
        return;
      }
      // The roster, task files and inboxes: what the view shows (not the logs, which change all the time).
      const shows = (file: string): boolean => file === paths.config || /\/task_\d+\.json$|\.jsonl$/.test(file);
      const bell = await Doorbell.open({ dirs: [paths.root, paths.tasksDir, paths.inboxDir], accept: shows, logger });
      const stopper = new AbortController();
      const quit = (): void => stopper.abort();
      const onKey = (key: Buffer): void => {
        if (key.includes(0x71) || key.includes(0x03)) quit();
      };
      const restore = (): void => {
        if (process.stdin.isTTY) process.stdin.setRawMode(false);
        out.write(ALT_SCREEN_OFF);
      };
      out.write(ALT_SCREEN_ON);
      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      process.stdin.on('data', onKey);
      process.stdin.resume();
      process.once('SIGINT', quit);
      process.once('SIGTERM', quit);
      out.on('resize', () => bell.ring());
      try {
        while (!stopper.signal.aborted) {
          out.write(CLEAR + frame());
          await bell.wait(stopper.signal);
        }
      } finally {
        restore();
        process.stdin.off('data', onKey);
        process.stdin.pause();
        process.off('SIGINT', quit);
        process.off('SIGTERM', quit);
        await bell.close();
      }
    });
}
