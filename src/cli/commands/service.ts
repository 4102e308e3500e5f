import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { renderUnit, unitName } from '../../daemon/systemd-unit.js';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { readConfig } from '../../roster/roster.js';
import { pathsFor } from '../context.js';
import { ladderBudgetMs } from '../../supervisor/stop-ladder.js';
import { TEAMD_BIN } from '../locations.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export function serviceCommand(io: Io): Command {
  return withCommonOptions(new Command('service').description('write (or print) a systemd unit that runs the daemon for this state folder'))
    .option('--user', 'a user unit (~/.config/systemd/user) instead of a system one (/etc/systemd/system)')
    .option('--print', 'print the unit instead of writing it')
    .action((options: CommonOptions & { user?: boolean; print?: boolean }) => {
      const paths = pathsFor(io, options.dir);
      const stateDir = paths.root;
      const { settings } = readConfig(paths.config);
      const unit = renderUnit({
        stateDir,
        nodePath: process.execPath,
        teamdBin: TEAMD_BIN,
        stopTimeoutSec: Math.ceil(ladderBudgetMs({ ipcGraceMs: settings.ipcGraceMs, termGraceMs: settings.termGraceMs }) / 1000) + 5,
        user: options.user === true,
      });
      const name = unitName(stateDir);
      if (options.print) {
        if (options.json) printJson(io, { name, unit });
        else io.out(unit);
        return;
      }
      const dir = options.user ? path.join(io.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'systemd', 'user') : '/etc/systemd/system';
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, name);
      writeFileAtomicSync(file, unit);
      const ctl = options.user ? 'systemctl --user' : 'systemctl';
      if (options.json) printJson(io, { name, file });
      else
        io.out(
          `wrote ${file}\nenable and start it:\n  ${ctl} daemon-reload\n  ${ctl} enable --now ${name}\nlogs: journalctl ${options.user ? '--user ' : ''}-u ${name} -f\n`,
        );
    });
}
