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
      scope: { kind: 'system', account: 'dev' },
      notify: false,
    });
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/teamd/bin/teamd start --foreground --dir "/srv/my project/.team"');
    expect(unit).toContain('WorkingDirectory="/srv/my project"');
    for (const line of [
      'Type=exec',
      'Restart=on-failure',
      'RestartSec=2s',
      'KillMode=mixed',
      'TimeoutStopSec=21s',
      'WantedBy=multi-user.target',
      'User=dev',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ReadWritePaths="/srv/my project"',
      'ProtectHome=read-only',
      'PrivateTmp=yes',
      'UMask=0077',
    ]) {
      expect(unit.split('\n')).toContain(line);
    }
    expect(unitName('/srv/my project/.team')).toMatch(/^teamd-my-project-[0-9a-f]{8}\.service$/);
    // Where systemd-notify is there, the daemon says when it is ready, from that helper (a child): NotifyAccess=all.
    const notifying = renderUnit({
      stateDir: '/srv/p/.team',
      nodePath: '/usr/bin/node',
      teamdBin: '/t',
      stopTimeoutSec: 21,
      scope: { kind: 'user' },
      notify: true,
    });
    expect(notifying.split('\n')).toEqual(expect.arrayContaining(['Type=notify', 'NotifyAccess=all']));
    expect(notifying.split('\n')).not.toContain('Type=exec');
  });

  it('--print prints a unit whose stop timeout covers the configured ladder', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ members: [], settings: { ipcGraceMs: 20_000, termGraceMs: 10_000 } }));
    const result = await runTeamd(['service', '--print', '--dir', dir, '--user-name', 'nobody']);
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

  it('a system unit never runs as root unless named: the account is --user-name, else $SUDO_USER', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const asSudo = await runTeamd(['service', '--print', '--dir', dir], { env: { SUDO_USER: 'maria' } });
    expect(asSudo.code, asSudo.stderr).toBe(0);
    expect(asSudo.stdout.split('\n')).toContain('User=maria');
    if (process.getuid?.() === 0) {
      const asRoot = await runTeamd(['service', '--print', '--dir', dir], { env: { SUDO_USER: '' } });
      expect(asRoot.code).toBe(2);
      expect(asRoot.stderr).toMatch(/would run the team as root.*--user-name <account>/);
      expect((await runTeamd(['service', '--print', '--dir', dir, '--user-name', 'root'])).stdout.split('\n')).toContain('User=root');
    }
    expect((await runTeamd(['service', '--print', '--user', '--user-name', 'x', '--dir', dir])).code).toBe(2);
    // An account the machine does not know would make a unit that never starts.
    const unknown = await runTeamd(['service', '--print', '--user-name', 'no-such-account-7', '--dir', dir]);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('there is no account "no-such-account-7" on this machine');
  });

  it('warns that the unit hides a state folder under /tmp from the service (PrivateTmp=yes); not one elsewhere', async () => {
    const underTmp = path.join(makeTempDir(), '.team');
    expect(underTmp.startsWith('/tmp/')).toBe(true);
    const warned = await runTeamd(['service', '--print', '--dir', underTmp, '--user-name', 'nobody']);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toBe(
      `teamd: warning: ${underTmp} is under /tmp, which the unit's PrivateTmp=yes hides from the service (it gets a /tmp of its own): move the workspace, or remove PrivateTmp=yes from the unit\n`,
    );
    // A user unit has no PrivateTmp: nothing to warn of.
    const user = await runTeamd(['service', '--print', '--user', '--dir', underTmp]);
    expect(user.code, user.stderr).toBe(0);
    expect(user.stdout.split('\n')).not.toContain('PrivateTmp=yes');
    expect(user.stderr).toBe('');
    // Not under /tmp, whatever the checkout's place (a clean clone in CI may be under /tmp itself).
    const elsewhere = `/nonexistent-teamd-${process.pid}/.team`;
    const quiet = await runTeamd(['service', '--print', '--dir', elsewhere, '--user-name', 'nobody']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(fs.existsSync(path.dirname(elsewhere))).toBe(false);
  });

  it('refuses to overwrite a unit edited by hand without --force; replaces one it wrote itself', async () => {
    const home = makeTempDir();
    const dir = path.join(makeTempDir(), '.team');
    const env = { XDG_CONFIG_HOME: home };
    const first = await runTeamd(['service', '--user', '--dir', dir, '--json'], { env });
    const { file } = JSON.parse(first.stdout) as { file: string };
    // Unchanged: written again without a word (a new teamd version may render it differently).
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8'));
    expect((await runTeamd(['service', '--user', '--dir', dir], { env })).code).toBe(0);
    const edited = fs.readFileSync(file, 'utf8').replace('RestartSec=2s', 'RestartSec=30s');
    fs.writeFileSync(file, edited);
    const refused = await runTeamd(['service', '--user', '--dir', dir], { env });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/was edited since teamd wrote it; nothing was written: .*--force/);
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
    expect((await runTeamd(['service', '--user', '--force', '--dir', dir], { env })).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('RestartSec=2s');
  });

  it.runIf(hasSystemdAnalyze)('the system unit scores OK in systemd-analyze security (it was 9.6 UNSAFE unhardened)', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const result = await runTeamd(['service', '--print', '--dir', dir, '--user-name', 'daemon']);
    const file = path.join(makeTempDir(), 'teamd-check.service');
    fs.writeFileSync(file, result.stdout);
    const security = spawnSync('systemd-analyze', ['security', '--offline=true', file], { encoding: 'utf8' });
    const score = /Overall exposure level for .*: (\d+\.\d+)/.exec(security.stdout)?.[1];
    expect(score, security.stdout + security.stderr).toBeDefined();
    expect(Number(score)).toBeLessThanOrEqual(4.0);
    const verify = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).toBe(0);
  });
});
