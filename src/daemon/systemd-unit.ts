import { createHash } from 'node:crypto';
import path from 'node:path';

export interface UnitSpec {
  readonly stateDir: string;
  readonly nodePath: string;
  readonly teamdBin: string;
  /** Seconds systemd waits for a stop before SIGKILL: must cover the whole stop ladder. */
  readonly stopTimeoutSec: number;
  readonly user: boolean;
}

/** A stable unit name per state folder: teamd-<workspace>-<hash>.service. */
export function unitName(stateDir: string): string {
  const workspace =
    path
      .basename(path.dirname(path.resolve(stateDir)))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'root';
  const hash = createHash('sha256').update(path.resolve(stateDir)).digest('hex').slice(0, 8);
  return `teamd-${workspace}-${hash}.service`;
}

/**
 * The unit that runs the daemon in the foreground. KillMode=mixed: SIGTERM goes to the daemon
 * alone, which stops its teammates in order; whatever is left at the timeout gets SIGKILL.
 * Restart=on-failure with a 2 s pause (the 100 ms default hits the start limit within a second).
 */
export function renderUnit(spec: UnitSpec): string {
  const stateDir = path.resolve(spec.stateDir);
  const quote = (value: string): string => (/[\s"\\]/.test(value) ? `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : value);
  return `[Unit]
Description=teamd: a team of coding agents for ${stateDir}
After=network-online.target
Wants=network-online.target

[Service]
Type=exec
WorkingDirectory=${quote(path.dirname(stateDir))}
ExecStart=${[spec.nodePath, spec.teamdBin, 'start', '--foreground', '--dir', stateDir].map(quote).join(' ')}
# Put ANTHROPIC_API_KEY=... (and ANTHROPIC_BASE_URL) here to use a real model; keep it mode 0600.
EnvironmentFile=-${spec.user ? '%h/.config/teamd/env' : '/etc/teamd/env'}
Restart=on-failure
RestartSec=2s
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=${spec.stopTimeoutSec}s
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=${spec.user ? 'default.target' : 'multi-user.target'}
`;
}
