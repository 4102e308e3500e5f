import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { main } from './main.js';
import { processIo } from './output.js';

// No top-level await: this is bundled as CommonJS (src/boot/code-cache.ts).
const keepPipes = endQuietlyOnClosedPipe([process.stdout, process.stderr], (code) => process.exit(code));
void main(process.argv.slice(2), processIo(keepPipes)).then((code) => {
  process.exitCode = code;
});
