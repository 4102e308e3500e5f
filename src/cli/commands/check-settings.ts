import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { combineChain, combineSettings, DEFAULT_SETTINGS, readSettingsFile, settingsWarnings, type HookEvent } from '../../settings/settings.js';
import { pathsFor } from '../context.js';
import { settingsChain } from '../../teammate/policy-wiring.js';
import { baseLayout, describeLayout, layoutWith, networkPolicyOf } from '../../sandbox/sandbox-view.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

/** Checks the team's settings and every role's, or one file, without applying anything. */
export function checkSettingsCommand(io: Io): Command {
  return withCommonOptions(
    new Command('check-settings').description(
      'validate settings.json and roles/*.json (permission rules, hooks, sandbox) without applying them, and show what commands see',
    ),
  )
    .option('--file <path>', 'check this file instead')
    .action((options: CommonOptions & { file?: string }) => {
      const paths = pathsFor(io, options.dir);
      const rolesDir = path.join(paths.root, 'roles');
      // Claude Code's files that teammates obey too (settingsChain), when they exist, under the team's.
      const claudeFiles = settingsChain(paths, '', io.env.HOME)
        .slice(0, -1)
        .filter((file) => fs.existsSync(file));
      const files = options.file
        ? [path.resolve(io.cwd, options.file)]
        : [...claudeFiles, path.join(paths.root, 'settings.json'), ...listJson(rolesDir).map((name) => path.join(rolesDir, name))];
      // The files every report is shown on top of, each read once.
      const chain = [...claudeFiles, path.join(paths.root, 'settings.json')];
      const chainParsed = new Map(chain.map((file) => [file, readQuietly(file)]));
      const where = { workspace: path.dirname(paths.root), stateDir: paths.root, env: io.env, execPath: process.execPath };
      const base = baseLayout(where, { makeCaches: false });
      const reports = files.map((file) => {
        const parsed = readSettingsFile(file);
        if (parsed === null) {
          if (options.file) throw new TeamdError('INVALID_INPUT', `${file} does not exist`);
          return { file, exists: false, sandbox: describeLayout(layoutWith(base, DEFAULT_SETTINGS.sandbox, where), networkPolicyOf(DEFAULT_SETTINGS.sandbox)) };
        }
        // A file is shown on top of those under it (Claude Code's, then the team's under a role's), as a teammate gets it.
        const at = chain.indexOf(file);
        const under = options.file ? [] : chain.slice(0, at === -1 ? chain.length : at).map((below) => chainParsed.get(below) ?? null);
        const settings = combineSettings(parsed, null);
        const combined = combineChain([...under, parsed]);
        const hooks = Object.fromEntries(
          (Object.entries(settings.hooks) as [HookEvent, readonly { hooks: readonly unknown[] }[]][]).map(([event, groups]) => [
            event,
            groups.reduce((sum, group) => sum + group.hooks.length, 0),
          ]),
        );
        return {
          file,
          exists: true,
          mode: settings.rules.mode,
          allow: settings.rules.allow.length,
          deny: settings.rules.deny.length,
          ask: settings.rules.ask.length,
          hooks,
          warnings: settingsWarnings(parsed),
          sandbox: describeLayout(layoutWith(base, combined.sandbox, where), networkPolicyOf(combined.sandbox)),
        };
      });
      if (options.json) return printJson(io, reports);
      for (const report of reports) {
        if (!report.exists) {
          io.out(`${report.file}: absent (the mode default: reads allowed, everything else asked)\n`);
          io.out(`  what commands see (with bubblewrap):\n${report.sandbox.map((line) => `    ${line}\n`).join('')}`);
          continue;
        }
        const hooks = Object.entries(report.hooks ?? {}).map(([event, count]) => `${event} ${count}`);
        io.out(
          `${report.file}: ok, mode ${report.mode}, ${report.allow} allow, ${report.ask} ask, ${report.deny} deny rules; hooks: ${hooks.length ? hooks.join(', ') : 'none'}\n`,
        );
        for (const warning of report.warnings ?? []) io.out(`  warning: ${warning}\n`);
        io.out(`  what commands see (with bubblewrap):\n${(report.sandbox ?? []).map((line) => `    ${line}\n`).join('')}`);
      }
    });
}

/** A file under another; one that does not parse counts as absent here (its own report says why). */
function readQuietly(file: string): ReturnType<typeof readSettingsFile> {
  try {
    return readSettingsFile(file);
  } catch {
    return null;
  }
}

function listJson(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
}
