import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { bridgedCommand, PROXY_SOCKET_INSIDE } from './net-bridge.js';
import { isInside } from './sandbox-places.js';

/** What the team's settings ask for: bubblewrap or refuse; bubblewrap if installed; never. */
export type SandboxMode = 'required' | 'preferred' | 'off';

/** How commands are confined on this machine, decided once per process. */
export type SandboxKind =
  | {
      readonly kind: 'bwrap';
      readonly bin: string;
      readonly version: string;
      /** Whether bubblewrap can give commands a network namespace of their own here (the network leash); null: it can. */
      readonly noNet?: string | null;
    }
  | { readonly kind: 'none'; readonly why: string };

export interface SandboxLayout {
  /** Read-write for commands. */
  readonly workspace: string;
  /** Replaced by an empty read-only folder: the state folder, and any other secret place (e.g. ~/.config/teamd, ~/.ssh). */
  readonly hidden: readonly string[];
  /** Replaced by an empty file (/dev/null, read-only): secret files such as ~/.pgpass or /etc/shadow. */
  readonly hiddenFiles?: readonly string[];
  /** Folders of the team's own bound read-write over a tool's cache (`~/.npm`, `~/.cache`), so npm and npx work. */
  readonly caches?: readonly { readonly source: string; readonly target: string }[];
  /** A private home (an empty tmpfs) over the daemon's, with what `keep` names bound back read-only (sandbox-places.ts). */
  readonly home?: { readonly path: string; readonly keep: readonly string[] } | null;
  /** Read-write besides the workspace (settings sandbox.filesystem.allowWrite). */
  readonly writable?: readonly string[];
  /** Read-only though inside a writable place (git's hooks and config, sandbox.filesystem.denyWrite). */
  readonly readOnly?: readonly string[];
  /** Read-only again inside a hidden place (sandbox.filesystem.allowRead). */
  readonly revealed?: readonly string[];
  /** The network leash: a network namespace of its own, reaching out only through the proxy at `socket`, bridged by `node`. */
  readonly network?: { readonly socket: string; readonly node: string } | null;
}

/** A command as spawn() takes it. */
export interface WrappedCommand {
  readonly file: string;
  readonly args: readonly string[];
  /** True when the command's whole process tree ends with the teammate (PID namespace + --die-with-parent). */
  readonly confined: boolean;
}

/** The daemon's finding, passed to its teammates so none probes again at start (a TEAMD_ variable: commands never see it). */
export const SANDBOX_ENV = 'TEAMD_SANDBOX';

/** The sandbox the daemon found, from the teammate's environment; null when absent or not understood (then the teammate probes). */
export function sandboxFromEnv(env: NodeJS.ProcessEnv): SandboxKind | null {
  const raw = env[SANDBOX_ENV];
  if (!raw) return null;
  try {
    const json = JSON.parse(raw) as Partial<{ kind: string; bin: string; version: string; why: string; noNet: unknown }>;
    if (json.kind === 'bwrap' && typeof json.bin === 'string' && BWRAP_CANDIDATES.includes(json.bin) && typeof json.version === 'string')
      return { kind: 'bwrap', bin: json.bin, version: json.version, noNet: typeof json.noNet === 'string' ? json.noNet : null };
    if (json.kind === 'none' && typeof json.why === 'string') return { kind: 'none', why: json.why };
  } catch {
    // fall through: probe
  }
  return null;
}

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];

/** Finds bubblewrap and checks that it can actually make a sandbox here (user namespaces may be off). */
export function detectSandbox(candidates: readonly string[] = BWRAP_CANDIDATES): SandboxKind {
  const bin = candidates.find((candidate) => fs.existsSync(candidate));
  if (!bin) return { kind: 'none', why: 'bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap' };
  try {
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 5_000 }).trim();
    const probe = (extra: string[]): void => {
      execFileSync(bin, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', ...extra, '--die-with-parent', '--', 'true'], {
        timeout: 5_000,
        stdio: 'ignore',
      });
    };
    probe([]);
    try {
      probe(['--unshare-net']);
      return { kind: 'bwrap', bin, version, noNet: null };
    } catch (error) {
      return { kind: 'bwrap', bin, version, noNet: `bubblewrap cannot make a network namespace here (${(error as Error).message.split('\n')[0]})` };
    }
  } catch (error) {
    return { kind: 'none', why: `bubblewrap at ${bin} cannot create a sandbox here (${(error as Error).message.split('\n')[0]})` };
  }
}

/** One line for logs, `teamd status` and the start banner. */
export function describeSandbox(kind: SandboxKind, mode: SandboxMode): string {
  if (mode === 'off') return 'OFF (settings.sandbox is "off"): commands run unconfined, with the state folder in reach';
  if (kind.kind === 'bwrap')
    return `${kind.version}: workspace read-write, rest read-only, private home, secrets and state folder hidden, PID namespace, ${
      kind.noNet ? `NO network leash (${kind.noNet}): commands reach any host` : 'network only through the proxy'
    }`;
  return `NONE (${kind.why}): commands run unconfined, with the state folder in reach`;
}

/**
 * Wraps `bash -c command` in bubblewrap: the whole filesystem read-only, the workspace
 * read-write, a private /tmp and home, the hidden places replaced by empty read-only ones, its
 * own network namespace reaching out only through the teammate's proxy, and a PID namespace
 * whose init is bwrap itself, killed with the teammate (--die-with-parent) — so every process
 * the command starts, detached or not, ends with it.
 */
export function wrapCommand(kind: SandboxKind, mode: SandboxMode, command: string, layout: SandboxLayout, workdir: string = layout.workspace): WrappedCommand {
  if (kind.kind !== 'bwrap' || mode === 'off') return { file: 'bash', args: ['-c', command], confined: false };
  const args = [
    '--die-with-parent',
    '--unshare-pid',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
  args.push(...mountArgs(layout, workdir), '--chdir', workdir, '--', ...run(layout, command));
  return { file: kind.bin, args, confined: true };
}

/**
 * Wraps an MCP server from the workspace's .mcp.json (which a teammate's commands can rewrite)
 * in bubblewrap: like a command, the filesystem read-only but the workspace and /tmp, with the
 * hidden places empty and the network on the same leash; unlike one, with real pids and in the
 * process group it was started in, so teamd stops the server and everything it started with one
 * signal to that group, and --die-with-parent ends it with its teammate.
 */
export function wrapServer(kind: SandboxKind, mode: SandboxMode, command: string, layout: SandboxLayout): WrappedCommand {
  if (kind.kind !== 'bwrap' || mode === 'off') return { file: 'bash', args: ['-c', command], confined: false };
  const args = ['--die-with-parent', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev'];
  if (fs.existsSync('/tmp')) args.push('--bind', '/tmp', '/tmp');
  args.push(...mountArgs(layout, layout.workspace), '--chdir', layout.workspace, '--', ...run(layout, command));
  return { file: kind.bin, args, confined: true };
}

/** The program bwrap runs: bash, behind the network bridge when the network is leashed. */
function run(layout: SandboxLayout, command: string): string[] {
  return layout.network ? bridgedCommand(layout.network.node, ['bash', '-c', command]) : ['bash', '-c', command];
}

/**
 * bwrap's mounts after the read-only root, in the order that makes each hold: the private home
 * and what it keeps, the caches and extra writable places, the workspace, the read-only places
 * inside it, the hidden places, what is revealed again inside them, then the proxy's socket.
 */
function mountArgs(layout: SandboxLayout, workdir: string): string[] {
  const args: string[] = [];
  const home = layout.home ?? null;
  if (home) {
    args.push('--tmpfs', home.path);
    for (const kept of home.keep) if (exists(kept)) args.push('--ro-bind', kept, kept);
  }
  for (const { source, target } of layout.caches ?? []) {
    // In a private home bwrap makes the folder; in the real one it must be there already.
    if (isFolder(source) && ((home && isInside(target, home.path)) || isFolder(target))) args.push('--bind', source, target);
  }
  for (const place of layout.writable ?? []) if (exists(place) && !hiddenHolds(place, layout)) args.push('--bind', place, place);
  args.push('--bind', layout.workspace, layout.workspace);
  for (const place of layout.readOnly ?? []) if (exists(place)) args.push('--ro-bind', place, place);
  for (const dir of layout.hidden) {
    if (!isFolder(dir) || holdsWorkspace(dir, layout) || goneWithHome(dir, layout)) continue;
    args.push('--tmpfs', dir);
    // A task's worktree lives in the state folder: it alone comes back, read-write, before the rest is made read-only.
    if (isInside(workdir, dir)) args.push('--bind', workdir, workdir);
    args.push('--remount-ro', dir);
  }
  args.push(...hideFiles(layout));
  for (const place of layout.revealed ?? []) if (exists(place) && !hiddenHolds(place, layout, true)) args.push('--ro-bind', place, place);
  if (layout.network) args.push('--unshare-net', '--bind', layout.network.socket, PROXY_SOCKET_INSIDE);
  return args;
}

/** A place of the real home that is not in the private one anyway (not inside what it keeps): nothing to hide. */
export function goneWithHome(place: string, layout: SandboxLayout): boolean {
  const home = layout.home;
  if (!home || !isInside(place, home.path)) return false;
  // A place the settings made writable is the real one: the secrets in it are still hidden.
  if ((layout.writable ?? []).some((writable) => writable === place || isInside(place, writable))) return false;
  return !home.keep.some((kept) => kept === place || isInside(place, kept));
}

function exists(place: string): boolean {
  return fs.lstatSync(place, { throwIfNoEntry: false }) !== undefined;
}

/**
 * Whether a place lies in (or holds) the state folder, the first hidden place: never made
 * writable or revealed, whatever the settings say. `stateOnly` checks the state folder alone
 * (revealing a place inside another hidden one is what allowRead is for).
 */
function hiddenHolds(place: string, layout: SandboxLayout, stateOnly = false): boolean {
  const state = layout.hidden[0];
  const hidden = stateOnly ? (state ? [state] : []) : layout.hidden;
  return hidden.some((dir) => dir === place || isInside(place, dir) || isInside(dir, place));
}

/** A folder itself, not a symlink to one (a symlink to a secret folder is hidden by hiding its target, which is listed too). */
function isFolder(place: string): boolean {
  return fs.lstatSync(place, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A secret place that holds the workspace (a project kept under /root by a daemon of another user) is not hidden: the workspace is what commands work on. */
function holdsWorkspace(dir: string, layout: SandboxLayout): boolean {
  return dir === layout.workspace || isInside(layout.workspace, dir);
}

/** bwrap's arguments that put an empty read-only file over each secret file there is (a regular file or a socket, not a symlink). */
function hideFiles(layout: SandboxLayout): string[] {
  const args: string[] = [];
  for (const file of layout.hiddenFiles ?? []) {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if ((stat?.isFile() === true || stat?.isSocket() === true) && !goneWithHome(file, layout)) args.push('--ro-bind', '/dev/null', file);
  }
  return args;
}
