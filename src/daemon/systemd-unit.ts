import { createHash } from 'node:crypto';
import path from 'node:path';

export interface UnitSpec {
  readonly stateDir: string;
  readonly nodePath: string;
  readonly teamdBin: string;
  /** Seconds systemd waits for a stop before SIGKILL: must cover the whole stop ladder. */
  readonly stopTimeoutSec: number;
  /**
   * Type=notify: the daemon says when it is ready and when it stops, through systemd-notify
   * (platform/systemd-notify.ts); false where that helper was not found, then Type=exec.
   */
  readonly notify: boolean;
  /** A user unit (~/.config/systemd/user), or a system one run as `account`. */
  readonly scope: { readonly kind: 'user' } | { readonly kind: 'system'; readonly account: string };
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

const quote = (value: string): string => (/[\s"\\]/.test(value) ? `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : value);

/**
 * Confinement of a system unit that leaves the daemon and its teammates what they need: the
 * workspace (and the state folder in it) writable, the network, and unprivileged user, mount
 * and PID namespaces for bubblewrap (so no RestrictNamespaces, no SystemCallFilter without
 * @mount) and a JIT (so no MemoryDenyWriteExecute). Everything else is read-only or absent.
 */
function systemHardening(workspace: string, account: string): string[] {
  return [
    `User=${account}`,
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    `ReadWritePaths=${quote(workspace)}`,
    'ProtectHome=read-only',
    'PrivateTmp=yes',
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'ProtectProc=invisible',
    'RestrictRealtime=yes',
    'RestrictSUIDSGID=yes',
    'LockPersonality=yes',
    'RemoveIPC=yes',
    'CapabilityBoundingSet=',
    'AmbientCapabilities=',
    'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
    'SystemCallArchitectures=native',
    'UMask=0077',
  ];
}

/** What a user manager can apply without privileges. */
const USER_HARDENING = [
  'NoNewPrivileges=yes',
  'RestrictRealtime=yes',
  'RestrictSUIDSGID=yes',
  'LockPersonality=yes',
  'SystemCallArchitectures=native',
  'UMask=0077',
];

/** The first line of every unit teamd writes: the hash of the rest, so a unit edited by hand is recognised. */
const STAMP = '# written by teamd service; sha256 of the rest: ';

/**
 * The unit that runs the daemon in the foreground. KillMode=mixed: SIGTERM goes to the daemon
 * alone, which stops its teammates in order; whatever is left at the timeout gets SIGKILL.
 * Restart=on-failure with a 2 s pause (the 100 ms default hits the start limit within a second).
 */
export function renderUnit(spec: UnitSpec): string {
  const stateDir = path.resolve(spec.stateDir);
  const workspace = path.dirname(stateDir);
  const user = spec.scope.kind === 'user';
  const body = `[Unit]
Description=teamd: a team of coding agents for ${stateDir}
After=network-online.target
Wants=network-online.target

[Service]
${
  spec.notify
    ? `Type=notify
# The daemon's ready and stopping notices come from systemd-notify, its child; its commands cannot reach the socket (docs/operations.md).
NotifyAccess=all`
    : `# Type=exec: systemd-notify was not found when this unit was written, so the daemon cannot say when it is ready.
Type=exec`
}
WorkingDirectory=${quote(workspace)}
ExecStart=${[spec.nodePath, spec.teamdBin, 'start', '--foreground', '--dir', stateDir].map(quote).join(' ')}
# Put ANTHROPIC_API_KEY=... (and ANTHROPIC_BASE_URL) here to use a real model; keep it mode 0600.
EnvironmentFile=-${user ? '%h/.config/teamd/env' : '/etc/teamd/env'}
Restart=on-failure
RestartSec=2s
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=${spec.stopTimeoutSec}s
StandardOutput=journal
StandardError=journal
# Confinement: teammates run commands; the workspace is all they may change (docs/operations.md).
${(spec.scope.kind === 'user' ? USER_HARDENING : systemHardening(workspace, spec.scope.account)).join('\n')}

[Install]
WantedBy=${user ? 'default.target' : 'multi-user.target'}
`;
  return `${STAMP}${digest(body)}\n${body}`;
}

/** Whether a unit file on disk is one teamd wrote and nobody changed since (then it may be replaced). */
export function isUneditedUnit(text: string): boolean {
  const newline = text.indexOf('\n');
  if (newline === -1 || !text.startsWith(STAMP)) return false;
  return text.slice(STAMP.length, newline) === digest(text.slice(newline + 1));
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
