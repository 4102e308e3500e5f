import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { Board } from '../../board/board.js';
import { isTeamdError } from '../../errors.js';
import { FileLocker } from '../../fs/file-lock.js';
import { createLogger } from '../../logger.js';
import { statePaths } from '../../paths.js';
import { formatTaskTable, type Io } from '../output.js';

/**
 * A walkthrough of the task board in a temporary state folder: dependencies, racing claims,
 * a failure leaving its dependent stuck, a retry, and a fenced-off stale claim.
 */
async function runBoardWalkthrough(io: Io, keep: boolean): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-demo-'));
  const paths = statePaths(path.join(root, '.team'));
  const logger = createLogger({ destination: paths.logFile('demo') });
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  const say = (text: string): void => io.out(`${text}\n`);
  const show = (): void => io.out(`${formatTaskTable(board.list().tasks).replace(/^(?=.)/gm, '    ')}\n`);

  say(`teamd board walkthrough in ${paths.root}\n`);
  const scaffold = await board.add({ subject: 'Scaffold the project' });
  const parser = await board.add({ subject: 'Write the parser', blockedBy: [scaffold.id] });
  const cli = await board.add({ subject: 'Write the CLI', blockedBy: [scaffold.id] });
  const tests = await board.add({ subject: 'Test parser and CLI', blockedBy: [parser.id, cli.id] });
  await board.add({ subject: 'Package a release', blockedBy: [tests.id] });
  say('1. Five tasks with dependencies; only the first is ready:');
  show();

  const first = await board.claimNext('alice');
  await board.complete(first!.id, { owner: 'alice', claim: first!.claim }, 'src/ created');
  say('2. alice claims and completes it; two tasks become ready without anyone editing them.');
  say('   alice and bob now claim at the same moment, each gets a different task:');
  const [a, b] = await Promise.all([board.claimNext('alice'), board.claimNext('bob')]);
  show();

  await board.fail(b!.id, { owner: 'bob', claim: b!.claim }, 'exit 1: syntax error');
  await board.complete(a!.id, { owner: 'alice', claim: a!.claim }, 'done');
  say(`3. bob's task fails: everything downstream is shown as stuck, not silently waiting:`);
  show();

  await board.release(b!.id);
  const retry = await board.claim(b!.id, 'bob');
  try {
    await board.complete(b!.id, { owner: 'bob', claim: b!.claim });
  } catch (error) {
    if (!isTeamdError(error)) throw error;
    say(`4. The lead releases it and bob's new process claims it again (claim ${retry.claim}).`);
    say(`   bob's old process, presumed dead, wakes up and writes with claim ${b!.claim}: refused.`);
    say(`     ${error.code}: ${error.message}\n`);
  }
  await board.complete(retry.id, { owner: 'bob', claim: retry.claim });
  for (let task = await board.claimNext('dave'); task; task = await board.claimNext('dave')) {
    await board.complete(task.id, { owner: 'dave', claim: task.claim });
  }
  say('5. The rest is claimed and completed in dependency order:');
  show();
  say(`Try it yourself: ./bin/teamd task list --dir ${keep ? paths.root : '<state folder>'}`);
  if (keep) say(`The demo state folder was kept: ${paths.root}`);
  else fs.rmSync(root, { recursive: true, force: true });
}

export function demoCommand(io: Io): Command {
  return new Command('demo')
    .description('show the task board at work in a temporary state folder (offline, no API key)')
    .option('--keep', 'keep the temporary state folder afterwards')
    .action(async (options: { keep?: boolean }) => {
      await runBoardWalkthrough(io, options.keep === true);
    });
}
