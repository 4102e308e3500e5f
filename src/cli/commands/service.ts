import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { isUneditedUnit, renderUnit, unitName, type UnitSpec } from '../../daemon/systemd-unit.js';
import { TeamdError } from '../../errors.js';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { readTextIfExists } from '../../fs/read-text.js';
import { readConfig } from '../../roster/roster.js';
import { combineChain, readSettingsFile } from '../../settings/settings.js';
import { settingsChain } from '../../teammate/policy-wiring.js';
import { statePaths } from '../../paths.js';
import { pathsFor } from '../context.js';
import { ladderBudgetMs } from '../../supervisor/stop-ladder.js';
import { TEAMD_BIN } from '../locations.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

interface ServiceOptions extends CommonOptions {
  user?: boolean;
  print?: boolean;
  force?: boolean;
  userName?: string;
}

export function serviceCommand(io: Io): Command {
  return withCommonOptions(new Command('service').description('write (or print) a hardened systemd unit that runs the daemon for this state folder'))
    .option('--user', 'a user unit (~/.config/systemd/user) instead of a system one (/etc/systemd/system)')
    .option('--user-name <account>', 'the account a system unit runs as (default: $SUDO_USER, else you; root only if named)')
    .option('--print', 'print the unit instead of writing it')
    .option('--force', 'replace a unit that was edited since teamd wrote it')
    .action((options: ServiceOptions) => {
      if (options.user && options.userName) throw new TeamdError('USAGE', '--user-name is for a system unit; a user unit runs as you');
      const paths = pathsFor(io, options.dir);
      const stateDir = paths.root;
      const { settings } = readConfig(paths.config);
      if (!options.user) refuseBypassWithoutConsent(paths.root, settings.allowBypassInService, paths.config);
      const unit = renderUnit({
        stateDir,
        nodePath: process.execPath,
        teamdBin: TEAMD_BIN,
        stopTimeoutSec: Math.ceil(ladderBudgetMs({ ipcGraceMs: settings.ipcGraceMs, termGraceMs: settings.termGraceMs }) / 1000) + 5,
        scope: options.user ? { kind: 'user' } : { kind: 'system', account: systemAccount(io, options.userName) },
        notify: spawnSync('systemd-notify', ['--version'], { stdio: 'ignore' }).status === 0,
      });
      const name = unitName(stateDir);
      // A system unit gives the service a /tmp of its own: a state folder under /tmp would not be there (a user unit has no PrivateTmp).
      if (!options.user && /^\/(var\/)?tmp(\/|$)/.test(path.resolve(stateDir)))
        io.err(
          `teamd: warning: ${stateDir} is under ${stateDir.startsWith('/var/') ? '/var/tmp' : '/tmp'}, which the unit's PrivateTmp=yes hides from the service (it gets a /tmp of its own): move the workspace, or remove PrivateTmp=yes from the unit\n`,
        );
      if (options.print) {
        if (options.json) printJson(io, { name, unit });
        else io.out(unit);
        return;
      }
      const dir = options.user ? path.join(io.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'systemd', 'user') : '/etc/systemd/system';
      const file = path.join(dir, name);
      const existing = readTextIfExists(file);
      if (existing !== null && existing !== unit && !isUneditedUnit(existing) && !options.force)
        throw new TeamdError(
          'INVALID_TRANSITION',
          `${file} was edited since teamd wrote it; nothing was written: compare with teamd service --print, then pass --force to replace it`,
        );
      fs.mkdirSync(dir, { recursive: true });
      writeFileAtomicSync(file, unit);
      const ctl = options.user ? 'systemctl --user' : 'systemctl';
      if (options.json) printJson(io, { name, file });
      else
        io.out(
          `wrote ${file}\nenable and start it:\n  ${ctl} daemon-reload\n  ${ctl} enable --now ${name}\nlogs: journalctl ${options.user ? '--user ' : ''}-u ${name} -f\n`,
        );
    });
}

/** A system-wide service whose teammates may do anything unasked runs only if the config says so, in so many words. */
function refuseBypassWithoutConsent(stateDir: string, consent: boolean, configFile: string): void {
  // The mode in force: the team's file, or a Claude Code file under it (settings-chain order).
  const mode = combineChain(settingsChain(statePaths(stateDir), '', os.homedir()).map((file) => readSettingsFile(file))).rules.mode;
  if (mode !== 'bypassPermissions' || consent) return;
  throw new TeamdError(
    'USAGE',
    `the team's settings.json uses the mode bypassPermissions (teammates run anything unasked); a system-wide service refuses it unless ${configFile} says "allowBypassInService": true in its settings`,
  );
}

/** Whether the system knows the account (its name services, as systemd will ask them). */
function accountExists(name: string): boolean {
  const found = spawnSync('getent', ['passwd', name], { encoding: 'utf8' });
  if (found.error === undefined) return found.status === 0;
  // No getent: the passwd file is what there is to read.
  return (readTextIfExists('/etc/passwd') ?? '').split('\n').some((line) => line.split(':')[0] === name);
}

/** Who a system unit runs as: the named account, else whoever ran sudo, else the caller; never root unless named. */
function systemAccount(io: Io, named: string | undefined): Extract<UnitSpec['scope'], { kind: 'system' }>['account'] {
  if (named !== undefined) {
    if (!/^[a-z_][a-z0-9_-]{0,31}\$?$/i.test(named)) throw new TeamdError('USAGE', `--user-name ${JSON.stringify(named)} is not an account name`);
    if (!accountExists(named))
      throw new TeamdError(
        'USAGE',
        `there is no account ${JSON.stringify(named)} on this machine (getent passwd ${named} finds none): name the workspace owner's`,
      );
    return named;
  }
  const account = io.env.SUDO_USER || os.userInfo().username;
  if (account === 'root')
    throw new TeamdError(
      'USAGE',
      'a system unit would run the team as root, and teammates run commands: pass --user-name <account> (the workspace owner), or --user-name root to insist',
    );
  return account;
}
