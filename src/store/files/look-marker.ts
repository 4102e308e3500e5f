import fs from 'node:fs';
import { touchRegular } from '../../fs/open-regular.js';

/** How stale the daemon's last look may be before teammates stop trusting it (it looks at least every 5 s). */
export const LOOK_TRUSTED_MS = 15_000;

/**
 * Margin taken off a look's start: folder times come from a clock that ticks every few ms, so a
 * change just after the look began could carry a time just before it.
 */
const CLOCK_MARGIN_MS = 10;

/**
 * `run/board-looked`: when the daemon last looked at the whole board for ready work (its mtime).
 * The daemon sets it after every look; an idle teammate's safety re-check skips its own scan
 * while the daemon has looked since the live task folder last changed, and recently — then
 * every ready task was seen and rung for. When the daemon stops looking (hung, stopped), the
 * mark goes stale and every teammate scans for itself again.
 */
export class LookMarker {
  constructor(
    private readonly file: string,
    private readonly tasksDir: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The daemon looked at everything changed before `startedAt`. Never throws: a lost mark only costs teammates a scan. */
  mark(startedAt: number): boolean {
    const at = (startedAt - CLOCK_MARGIN_MS) / 1000;
    try {
      fs.utimesSync(this.file, at, at);
      return true;
    } catch {
      try {
        touchRegular(this.file);
        fs.utimesSync(this.file, at, at);
        return true;
      } catch {
        return false;
      }
    }
  }

  /** True when the daemon looked after the live folder last changed, and not long ago. */
  covers(): boolean {
    try {
      const looked = fs.statSync(this.file).mtimeMs;
      const changed = fs.statSync(this.tasksDir).mtimeMs;
      return looked >= changed && this.now() - looked < LOOK_TRUSTED_MS;
    } catch {
      return false;
    }
  }
}
