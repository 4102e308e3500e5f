import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the team's settings ask for: bubblewrap or refuse; bubblewrap if installed; never. */
export type SandboxMode = 'required' | 'preferred' | 'off';

/** How commands are confined on this machine, decided once per process. */
export type SandboxKind = { readonly kind: 'bwrap'; readonly bin: string; readonly version: string } | { readonly kind: 'none'; readonly why: string };

export interface SandboxLayout {
  /** Read-write for commands. */
  readonly workspace: string;
  /** Replaced by an empty read-only folder: the state folder, and any other secret place (e.g. ~/.config/teamd, ~/.ssh). */
  readonly hidden: readonly string[];
  /** Replaced by an empty file (/dev/null, read-only): secret files such as ~/.pgpass or /etc/shadow. */
  readonly hiddenFiles?: readonly string[];
  /** Folders of the team's own bound read-write over a tool's cache (`~/.npm`, `~/.cache`), so npm and npx work. */
  readonly caches?: readonly { readonly source: string; readonly target: string }[];
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
    const json = JSON.parse(raw) as Partial<{ kind: string; bin: string; version: string; why: string }>;
    if (json.kind === 'bwrap' && typeof json.bin === 'string' && BWRAP_CANDIDATES.includes(json.bin) && typeof json.version === 'string')
      return { kind: 'bwrap', bin: json.bin, version: json.version };
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
    execFileSync(bin, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--', 'true'], {
      timeout: 5_000,
      stdio: 'ignore',
    });
    return { kind: 'bwrap', bin, version };
  } catch (error) {
    return { kind: 'none', why: `bubblewrap at ${bin} cannot create a sandbox here (${(error as Error).message.split('\n')[0]})` };
  }
}

/** One line for logs, `teamd status` and the start banner. */
export function describeSandbox(kind: SandboxKind, mode: SandboxMode): string {
  if (mode === 'off') return 'OFF (settings.sandbox is "off"): commands run unconfined, with the state folder in reach';
  if (kind.kind === 'bwrap') return `${kind.version}: workspace read-write, rest read-only, state folder hidden, PID namespace`;
  return `NONE (${kind.why}): commands run unconfined, with the state folder in reach`;
}

/**
 * Wraps `bash -c command` in bubblewrap: the whole filesystem read-only, the workspace
 * read-write, a private /tmp, the hidden folders replaced by empty read-only ones, and a PID
 * namespace whose init is bwrap itself, killed with the teammate (--die-with-parent) — so
 * every process the command starts, detached or not, ends with it.
 */
export function wrapCommand(kind: SandboxKind, mode: SandboxMode, command: string, layout: SandboxLayout, workdir: string = layout.workspace): WrappedCommand {
  if (kind.kind !== 'bwrap' || mode === 'off') return { file: 'bash', args: ['-c', command], confined: false };
  const args = ['--die-with-parent', '--unshare-pid', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  args.push('--bind', layout.workspace, layout.workspace);
  for (const dir of layout.hidden) {
    if (!isFolder(dir) || holdsWorkspace(dir, layout)) continue;
    args.push('--tmpfs', dir);
    // A task's worktree lives in the state folder: it alone comes back, read-write, before the rest is made read-only.
    if (isInside(workdir, dir)) args.push('--bind', workdir, workdir);
    args.push('--remount-ro', dir);
  }
  args.push(...hideFiles(layout), ...bindCaches(layout));
  args.push('--chdir', workdir, '--', 'bash', '-c', command);
  return { file: kind.bin, args, confined: true };
}

/**
 * Wraps an MCP server from the workspace's .mcp.json (which a teammate's commands can rewrite)
 * in bubblewrap: like a command, the filesystem read-only but the workspace and /tmp, with the
 * hidden folders empty; unlike one, with real pids and in the process group it was started in,
 * so teamd stops the server and everything it started with one signal to that group, and
 * --die-with-parent ends it with its teammate.
 */
export function wrapServer(kind: SandboxKind, mode: SandboxMode, command: string, layout: SandboxLayout): WrappedCommand {
  if (kind.kind !== 'bwrap' || mode === 'off') return { file: 'bash', args: ['-c', command], confined: false };
  const args = ['--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev'];
  if (fs.existsSync('/tmp')) args.push('--bind', '/tmp', '/tmp');
  args.push('--bind', layout.workspace, layout.workspace);
  for (const dir of layout.hidden) {
    if (!isFolder(dir) || holdsWorkspace(dir, layout)) continue;
    args.push('--tmpfs', dir, '--remount-ro', dir);
  }
  args.push(...hideFiles(layout), ...bindCaches(layout));
  args.push('--chdir', layout.workspace, '--', 'bash', '-c', command);
  return { file: kind.bin, args, confined: true };
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** A folder itself, not a symlink to one (a symlink to a secret folder is hidden by hiding its target, which is listed too). */
function isFolder(place: string): boolean {
  return fs.lstatSync(place, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A secret place that holds the workspace (a project kept under /root by a daemon of another user) is not hidden: the workspace is what commands work on. */
function holdsWorkspace(dir: string, layout: SandboxLayout): boolean {
  return dir === layout.workspace || isInside(layout.workspace, dir);
}

/** bwrap's arguments that put an empty read-only file over each secret file there is (a regular file, not a symlink). */
function hideFiles(layout: SandboxLayout): string[] {
  const args: string[] = [];
  for (const file of layout.hiddenFiles ?? []) {
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isFile() === true) args.push('--ro-bind', '/dev/null', file);
  }
  return args;
}

/** bwrap's arguments that bind each cache of the team's over the tool's own (both must be folders; one that cannot be is left out). */
function bindCaches(layout: SandboxLayout): string[] {
  const args: string[] = [];
  for (const { source, target } of layout.caches ?? []) {
    if (isFolder(source) && isFolder(target)) args.push('--bind', source, target);
  }
  return args;
}

/**
 * The team's caches for the tools commands run (npm's, and the XDG cache pip and others use), in
 * the state folder, each made if missing with the tool's own folder to mount it on: the rest of
 * the home is read-only to commands, and npx failed writing its cache there.
 */
export function teamCaches(stateDir: string, env: NodeJS.ProcessEnv): { source: string; target: string }[] {
  const home = env.HOME;
  if (!home) return [];
  const caches = [
    { source: path.join(stateDir, 'cache', 'npm'), target: path.join(home, '.npm') },
    { source: path.join(stateDir, 'cache', 'xdg'), target: path.join(home, '.cache') },
  ];
  return caches.filter(({ source, target }) => {
    try {
      fs.mkdirSync(source, { recursive: true, mode: 0o700 });
      if (!fs.existsSync(target)) fs.mkdirSync(target, { recursive: true, mode: 0o700 });
      return true;
    } catch {
      // A home that is not writable: commands keep the tool's own folder, read-only.
      return false;
    }
  });
}

/** Folders of a home that hold credentials: keys, cloud and registry logins, tokens. */
const SECRET_HOME_FOLDERS = [
  '.config/teamd',
  '.ssh',
  '.aws',
  '.gnupg',
  '.docker',
  '.kube',
  '.azure',
  '.config/gh',
  '.config/gcloud',
  '.password-store',
  '.terraform.d',
];
/** Files of a home that hold credentials. */
const SECRET_HOME_FILES = ['.npmrc', '.netrc', '.pgpass', '.git-credentials', '.pypirc', '.yarnrc.yml', '.my.cnf', '.vault-token'];
/** Files of the system only root should read. */
const SECRET_SYSTEM_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers'];

/** Folders a teammate's commands must never see, besides the state folder: credentials in the daemon's home, and root's home. */
export function secretPlaces(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  const places = home ? SECRET_HOME_FOLDERS.map((name) => path.join(home, name)) : [];
  // Root's home, when the daemon's is another: its files are root's alone.
  if (home !== '/root') places.push('/root');
  return places;
}

/** Files a teammate's commands must never read: credentials in the daemon's home (and where PGPASSFILE says), and the system's password hashes. */
export function secretFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  const files = home ? SECRET_HOME_FILES.map((name) => path.join(home, name)) : [];
  if (env.PGPASSFILE) files.push(path.resolve(env.PGPASSFILE));
  return [...files, ...SECRET_SYSTEM_FILES];
}
