import { ClosedPipe } from './closed-pipe.js';
import { main } from './main.js';
import { processIo } from './output.js';

// No top-level await: this is bundled as CommonJS (src/boot/code-cache.ts).
void main(process.argv.slice(2), processIo(new ClosedPipe((code) => process.exit(code)))).then((code) => {
  process.exitCode = code;
});
