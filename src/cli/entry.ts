import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { main } from './main.js';
import { processIo } from './output.js';

const keepPipes = endQuietlyOnClosedPipe([process.stdout, process.stderr], (code) => process.exit(code));
process.exitCode = await main(process.argv.slice(2), processIo(keepPipes));
