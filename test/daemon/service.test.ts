import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderUnit, unitName } from '../../src/daemon/systemd-unit.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('teamd service', () => {
  it('renders a unit that runs the daemon in the foreground, restarts on failure and leaves no orphans', () => {
    const unit = renderUnit({
      stateDir: '/srv/my project/.team',
      nodePath: '/usr/bin/node',
      teamdBin: '/opt/teamd/bin/teamd',
      stopTimeoutSec: 21,
      user: false,
    });
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/teamd/bin/teamd start --foreground --dir "/srv/my project/.team"');
    expect(unit).toContain('WorkingDirectory="/srv/my project"');
    for (const line of ['Type=exec', 'Restart=on-failure', 'RestartSec=2s', 'KillMode=mixed', 'TimeoutStopSec=21s', 'WantedBy=multi-user.target']) {
      expect(unit.split('\n')).toContain(line);
    }
    expect(unitName('/srv/my project/.team')).toMatch(/^teamd-my-project-[0-9a-f]{8}\.service$/);
  });

  it('--print prints a unit whose stop timeout covers the configured ladder', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ members: [], settings: { ipcGraceMs: 20_000, termGraceMs: 10_000 } }));
    const result = await runTeamd(['service', '--print', '--dir', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('TimeoutStopSec=36s');
    expect(result.stdout).toContain(`--dir ${dir}`);
  });

  it.runIf(hasSystemdAnalyze)('--user writes a unit that systemd-analyze verify accepts', async () => {
    const home = makeTempDir();
    const dir = path.join(makeTempDir(), '.team');
    const result = await runTeamd(['service', '--user', '--dir', dir, '--json'], { env: { XDG_CONFIG_HOME: home } });
    expect(result.code, result.stderr).toBe(0);
    const { file } = JSON.parse(result.stdout) as { file: string };
    expect(path.dirname(file)).toBe(path.join(home, 'systemd', 'user'));
    expect(fs.readFileSync(file, 'utf8')).toContain('WantedBy=default.target');
    const verify = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).toBe(0);
  });
});
