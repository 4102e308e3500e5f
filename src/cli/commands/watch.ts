import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { repaint } from '../watch/repaint.js';
import { TeamdError } from '../../errors.js';
import { openViewBell } from '../watch/view-bell.js';
import { openContext } from '../context.js';
import { printJson, type Io } from '../output.js';
import { renderFrame } from '../watch/render.js';
import { snapshotJson, takeSnapshot, type Snapshot } from '../watch/snapshot.js';
import { answerRequest } from '../../inbox/answer-request.js';
import { withCommonOptions, type CommonOptions } from './common.js';

const ALT_SCREEN_ON = '\x1b[?1049h\x1b[?25l';
const ALT_SCREEN_OFF = '\x1b[?25h\x1b[?1049l';
const PAGE_DOWN = '\x1b[6~';
const PAGE_UP = '\x1b[5~';
/** At most this many redraws a second, however fast the files change. */
const MIN_REDRAW_GAP_MS = 100;
/** Messages read for the frame: more than any screen shows. */
const MESSAGES_READ = 20;

export function watchCommand(io: Io): Command {
  return withCommonOptions(
    new Command('watch').description(
      'a live view of what waits for your answer, the team, the board and the latest messages; redrawn on changes (a approves, r rejects the first request; n and p page a big team; q or Ctrl-C quits)',
    ),
  )
    .option('--once', 'print one frame and exit (no terminal control)')
    .action(async (options: CommonOptions & { once?: boolean }) => {
      const { paths, store, logger } = await openContext(io, options.dir, 'read');
      const out = io.stdoutStream();
      if (options.json) {
        printJson(io, snapshotJson(await takeSnapshot(paths, store, 10), paths));
        return;
      }
      const interactive = !options.once && out.isTTY === true;
      // https://no-color.org: a non-empty NO_COLOR turns colour off.
      const color = interactive && !io.env.NO_COLOR;
      let latest: Snapshot | null = null;
      // The page of the team shown when it has more members than rows: n and p (and PgDn, PgUp) turn it.
      let memberPage = 0;
      const frame = async (): Promise<{ lines: string[]; rosterError: string | null }> => {
        const snapshot = (latest = await takeSnapshot(paths, store, MESSAGES_READ));
        const lines = renderFrame(snapshot, { width: out.columns ?? 100, height: interactive ? (out.rows ?? 40) : 40, dir: paths.root, color, memberPage });
        return { lines, rosterError: snapshot.rosterError };
      };
      if (!interactive) {
        const once = await frame();
        io.out(`${once.lines.join('\n')}\n`);
        if (once.rosterError) throw new TeamdError('CONFIG_CORRUPT', once.rosterError);
        return;
      }
      const bell = await openViewBell(paths, store, logger);
      const stopper = new AbortController();
      const quit = (): void => stopper.abort();
      // a approves, r rejects the first request waiting (shown at the top); the redraw shows the next.
      const answer = (approve: boolean): void => {
        const request = latest?.requests[0];
        if (!request) return;
        void answerRequest(store.mail, store.board, request, { approve, feedback: approve ? '' : 'rejected by the person in teamd watch' })
          .catch((error: unknown) => logger.warn({ err: error, requestId: request.requestId }, 'could not answer from teamd watch'))
          .finally(() => bell.ring());
      };
      const turnPage = (by: number): void => {
        memberPage += by;
        bell.ring();
      };
      const onKey = (key: Buffer): void => {
        const text = key.toString('latin1');
        // Page keys are whole escape sequences: their bytes must not be read as letters below.
        if (text === PAGE_DOWN) turnPage(1);
        else if (text === PAGE_UP) turnPage(-1);
        else if (key.includes(0x71) || key.includes(0x03)) quit();
        // Any other escape sequence (arrows, focus, mouse) answers nothing: its letters are not keys.
        else if (text.startsWith('\x1b')) return;
        else if (key.includes(0x6e)) turnPage(1);
        else if (key.includes(0x70)) turnPage(-1);
        else if (key.includes(0x61)) answer(true);
        else if (key.includes(0x72)) answer(false);
      };
      const restore = (): void => {
        if (process.stdin.isTTY) process.stdin.setRawMode(false);
        out.write(ALT_SCREEN_OFF);
      };
      let shown: readonly string[] | null = null;
      let drawnAt = 0;
      out.write(ALT_SCREEN_ON);
      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      process.stdin.on('data', onKey);
      process.stdin.resume();
      process.once('SIGINT', quit);
      process.once('SIGTERM', quit);
      const onResize = (): void => {
        shown = null;
        bell.ring();
      };
      out.on('resize', onResize);
      try {
        while (!stopper.signal.aborted) {
          // Only the lines that changed are written; never a final newline (it would scroll a full screen).
          const { lines } = await frame();
          const change = repaint(shown, lines);
          if (change !== '') {
            out.write(change);
            shown = lines;
            drawnAt = Date.now();
          }
          await bell.wait(stopper.signal);
          // A burst of file events becomes one redraw: at most one every MIN_REDRAW_GAP_MS.
          const wait = drawnAt + MIN_REDRAW_GAP_MS - Date.now();
          if (wait > 0 && !stopper.signal.aborted) await sleep(wait, undefined, { signal: stopper.signal }).catch(() => {});
        }
      } finally {
        restore();
        out.off('resize', onResize);
        process.stdin.off('data', onKey);
        process.stdin.pause();
        process.off('SIGINT', quit);
        process.off('SIGTERM', quit);
        await bell.close();
      }
    });
}
