import { main } from './main.js';
import { processIo } from './output.js';

process.exitCode = await main(process.argv.slice(2), processIo());
