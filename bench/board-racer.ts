// One racing claimer process for the board benchmark. Prints "ready", waits for "go" on stdin, claims until
// nothing is left, then prints {claims: [[id, ms], ...], tornReads, cpuMs} as one JSON line.
// Usage: board-racer.js <stateDir> <owner> <locked|unlocked>
import fs from 'node:fs';
import { Board } from '../src/store/files/board.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths, TASK_FILE_PATTERN, type StatePaths } from '../src/paths.js';
import { awaitGo } from './child.js';

const [stateDir, owner, mode] = process.argv.slice(2) as [string, string, string];
const paths = statePaths(stateDir);
const logger = createLogger();
const board = new Board({ paths, locker: new FileLocker({ logger }), logger });

let tornReads = 0;

/** The seeds' claim: list, read, pick the first pending unowned task, write it back — no lock. */
function claimUnlocked(statePaths: StatePaths): number | null {
  const ids = fs
    .readdirSync(statePaths.tasksDir)
    .map((name) => TASK_FILE_PATTERN.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  for (const id of ids) {
    const file = statePaths.taskFile(id);
    let task: { status: string; owner: string | null };
    try {
      task = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof task;
    } catch {
      // A plain writeFileSync truncates first: a concurrent reader can see a half-written file.
      tornReads++;
      continue;
    }
    if (task.status !== 'pending' || task.owner !== null) continue;
    fs.writeFileSync(file, JSON.stringify({ ...task, status: 'in_progress', owner }));
    return id;
  }
  return null;
}

await awaitGo();
const cpuAtStart = process.cpuUsage();
const claims: [number, number][] = [];
for (;;) {
  const started = performance.now();
  const id = mode === 'unlocked' ? claimUnlocked(paths) : ((await board.claimNext(owner))?.id ?? null);
  if (id === null) break;
  claims.push([id, performance.now() - started]);
}
const cpu = process.cpuUsage(cpuAtStart);
process.stdout.write(`${JSON.stringify({ claims, tornReads, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
