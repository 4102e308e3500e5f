import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import { Doorbell } from './doorbell.js';
import { openRegular } from '../fs/open-regular.js';

/** Bytes read per step, and the longest partial line kept while waiting for its end. */
const READ_BYTES = 1024 * 1024;

/**
 * Calls onLine for every complete line of a file from `offset`, then for each new one as it
 * is appended, until the signal aborts. Woken by the file watcher, never by a timer.
 */
export async function followLines(file: string, offset: number, onLine: (line: string) => void, signal: AbortSignal, logger: Logger): Promise<void> {
  const bell = await Doorbell.open({ dirs: [path.dirname(file)], accept: (changed) => path.resolve(changed) === path.resolve(file), logger });
  let position = offset;
  let pending = '';
  try {
    while (!signal.aborted) {
      const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
      if (size < position) position = 0;
      if (size > position) {
        const fd = openRegular(file, 'read');
        try {
          // In bounded reads: a large backlog never sits in memory whole.
          const buffer = Buffer.alloc(Math.min(READ_BYTES, size - position));
          const length = fs.readSync(fd, buffer, 0, buffer.length, position);
          position += length;
          const lines = (pending + buffer.subarray(0, length).toString('utf8')).split('\n');
          pending = lines.pop() ?? '';
          if (pending.length > READ_BYTES) pending = '';
          for (const line of lines) if (line.length > 0) onLine(line);
        } finally {
          fs.closeSync(fd);
        }
        // More may be there already: read on before waiting (yielding to the event loop between reads).
        if (position < size) {
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
      }
      await bell.wait(signal);
    }
  } finally {
    await bell.close();
  }
}
