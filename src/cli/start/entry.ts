import fs from 'node:fs';
import { ClosedPipe } from '../closed-pipe.js';
import { main } from './main.js';
import { processIo } from '../output.js';

// No top-level await: this is bundled as CommonJS (src/platform/boot/code-cache.ts).
const closed = new ClosedPipe(
  (code) => process.exit(code),
  (line) => {
    try {
      fs.writeSync(2, line);
    } catch {
      // stderr is failing too: the exit status is all that is left.
    }
  },
);
void main(process.argv.slice(2), processIo(closed)).then((code) => {
  process.exitCode = code;
});
