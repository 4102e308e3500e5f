import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { runDemo, formatSummary, type DemoHooks } from '../../demo/run-demo.js';
import { runWorktreeDemo } from '../../demo/worktree-demo.js';
import { leadDemoGoal, prepareLeadDemo } from '../../demo/lead-demo.js';
import { openContext } from '../context.js';
import { follow, handOver } from './run.js';
import { TeamdError } from '../../errors.js';
import { createLogger } from '../../log/logger.js';
import { startDetachedDaemon, stopDaemonAndWait } from '../daemon-process.js';
import { printJson, type Io } from '../output.js';
import { runsUnsandboxed, type PidInfo } from '../../proc/pid-file.js';
import type { StatePaths } from '../../paths.js';
import { isoTime } from '../../platform/iso-time.js';

export function demoCommand(io: Io): Command {
  return new Command('demo')
    .description('watch a team of three build, test and package a small project, offline (no API key), in a temporary folder')
    .argument(
      '[which]',
      "'worktrees': two teammates change one file in their own git worktrees, then merge and conflict; 'lead': the lead agent builds the project from one goal",
    )
    .option('--keep', 'leave the workspace and the daemon running afterwards, to poke at')
    .option('--json', 'print the summary as JSON on stdout (the live view goes to stderr)')
    .action(async (which: string | undefined, options: { keep?: boolean; json?: boolean }) => {
      if (which !== undefined && which !== 'worktrees' && which !== 'lead')
        throw new TeamdError('USAGE', `there is no demo ${JSON.stringify(which)}: teamd demo, teamd demo worktrees, or teamd demo lead`);
      const time = (): string => isoTime().slice(11, 19);
      const show = (line: string): void => (options.json ? io.err : io.out)(`${time()}  ${line}\n`);
      // Ctrl-C, or a reader that went away (teamd demo | head), must not leave the demo's daemon running.
      let running: { paths: StatePaths; info: PidInfo } | null = null;
      let ending: Promise<never> | null = null;
      const end = (code: number): void => {
        ending ??= (async () => {
          if (running && options.keep !== true) {
            await stopDaemonAndWait(running.paths, running.info).catch(() => undefined);
            fs.rmSync(path.dirname(running.paths.root), { recursive: true, force: true });
          }
          process.exit(code);
        })();
      };
      const interrupt = (): void => end(130);
      io.onClosedPipe(end);
      const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
      for (const signal of signals) process.once(signal, interrupt);
      const hooks = {
        startDaemon: async (paths: StatePaths) => {
          const info = await startDetachedDaemon(io, paths, { model: 'offline', idleTimeout: 0 });
          running = { paths, info };
          if (info.sandbox) show(runsUnsandboxed(info) ? `WARNING: teammates' commands are NOT sandboxed: ${info.sandbox}` : `sandbox: ${info.sandbox}`);
          return info;
        },
        stopDaemon: stopDaemonAndWait,
        show,
        logger: createLogger(),
      };
      // What fails once the demo is ending (a request its daemon, already stopping, refuses) is
      // part of ending: no error line, the demo ends as end() says.
      await play(which, options, io, hooks, () => {
        for (const signal of signals) process.off(signal, interrupt);
      }).catch(async (error: unknown) => {
        if (ending) await ending;
        throw error;
      });
    });
}

async function play(
  which: string | undefined,
  options: { keep?: boolean; json?: boolean },
  io: Io,
  hooks: DemoHooks,
  /** The demo is over (a signal now ends teamd as usual). */
  settled: () => void,
): Promise<void> {
  if (which === 'lead') {
    // One goal to the lead agent, which staffs the team, creates the tasks and reports, as teamd run shows it.
    const paths = prepareLeadDemo();
    hooks.show(`workspace ${path.dirname(paths.root)}: one goal for the lead agent, offline model`);
    const info = await hooks.startDaemon(paths);
    try {
      const context = await openContext(io, paths.root, 'write');
      await follow(io, context, await handOver(io, context, leadDemoGoal(), {}), false);
    } finally {
      settled();
      if (options.keep !== true) {
        await stopDaemonAndWait(paths, info);
        fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
      } else io.out(`kept: ${path.dirname(paths.root)} (teamd stop --dir ${paths.root} when done)\n`);
    }
    return;
  }
  if (which === 'worktrees') {
    const result = await runWorktreeDemo(hooks, options.keep === true).finally(settled);
    if (options.json) printJson(io, result);
    else io.out(`\nworktrees demo: ${result.tasks.map((t) => `task ${t.id} ${t.merge}`).join(', ')}${result.kept ? ` (kept in ${result.workspace})` : ''}\n`);
    if (result.tasks.map((t) => t.merge).join(',') !== 'merged,conflict') throw new TeamdError('IO', 'the worktrees demo did not go as it should: see above');
    return;
  }
  const summary = await runDemo(hooks, options.keep === true).finally(settled);
  if (options.json) printJson(io, summary);
  else io.out(formatSummary(summary));
  const unfinished = summary.tasks.filter((t) => t.status !== 'completed');
  if (unfinished.length > 0) throw new TeamdError('IO', `the demo did not finish: ${unfinished.map((t) => `#${t.id} ${t.status}`).join(', ')}`);
}
