import { lazyBuiltin } from '../platform/lazy-builtin.js';

export interface SearchFile {
  readonly file: string;
  readonly text: string;
}

export type SearchOutcome =
  { readonly kind: 'hits'; readonly hits: string[] } | { readonly kind: 'timeout' } | { readonly kind: 'error'; readonly message: string };

// Runs in a worker thread: a pattern that backtracks for minutes blocks that thread, never the teammate's.
const MATCHER = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern);
const hits = [];
for (const { file, text } of workerData.files) {
  const lines = text.split('\\n');
  for (let i = 0; i < lines.length && hits.length < workerData.max; i++) {
    if (regex.test(lines[i])) hits.push(file + ':' + (i + 1) + ': ' + lines[i].slice(0, 300));
  }
  if (hits.length >= workerData.max) break;
}
parentPort.postMessage(hits);
`;

/** Matches a regular expression against files' lines off the main thread, ended after `timeoutMs`. */
export function searchLines(pattern: string, files: readonly SearchFile[], max: number, timeoutMs: number): Promise<SearchOutcome> {
  return new Promise((resolve) => {
    // Loaded on first use: worker_threads is ~0.3 MiB of every teammate that never searches.
    const { Worker } = lazyBuiltin.workerThreads();
    const worker = new Worker(MATCHER, { eval: true, workerData: { pattern, files, max }, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    let done = false;
    const finish = (outcome: SearchOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    worker.once('message', (hits: string[]) => finish({ kind: 'hits', hits }));
    worker.once('error', (error) => finish({ kind: 'error', message: error.message }));
    worker.once('exit', () => finish({ kind: 'error', message: 'the search stopped unexpectedly' }));
  });
}
