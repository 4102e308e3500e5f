import fs from 'node:fs';
import path from 'node:path';

/**
 * The places of this machine the sandbox treats specially: secrets it hides, the person's home it
 * replaces with a private one (keeping the toolchains installed there), the team's caches, and the
 * workspace files a command must not rewrite because the person's own tools run them.
 */

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
  '.local/share/keyrings',
];
/** Files of a home that hold credentials (some inside a toolchain folder that stays in sight, such as ~/.cargo). */
const SECRET_HOME_FILES = [
  '.npmrc',
  '.netrc',
  '.pgpass',
  '.git-credentials',
  '.pypirc',
  '.yarnrc.yml',
  '.my.cnf',
  '.vault-token',
  '.cargo/credentials',
  '.cargo/credentials.toml',
];
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

/**
 * Files a teammate's commands must never read: credentials in the daemon's home (and where
 * PGPASSFILE says), and the system's password hashes. And systemd's notify sockets: a unit of
 * Type=notify takes notices from every process it runs (NotifyAccess=all, for systemd-notify),
 * and a socket is reachable through a read-only bind, so a command could claim a main pid or a
 * stop for the daemon's service.
 */
export function secretFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  const files = home ? SECRET_HOME_FILES.map((name) => path.join(home, name)) : [];
  if (env.PGPASSFILE) files.push(path.resolve(env.PGPASSFILE));
  const notify = ['/run/systemd/notify'];
  if (env.XDG_RUNTIME_DIR) notify.push(path.join(env.XDG_RUNTIME_DIR, 'systemd', 'notify'));
  if (env.NOTIFY_SOCKET?.startsWith('/')) notify.push(env.NOTIFY_SOCKET);
  return [...files, ...SECRET_SYSTEM_FILES, ...new Set(notify)];
}

/** What of the person's home stays in a command's private home, read-only, besides the toolchains: git's identity. */
const KEPT_HOME_FILES = ['.gitconfig', '.config/git'];

/**
 * The private home that stands in for the daemon's: null when there is none to make (no HOME, the
 * root folder, or a home inside the workspace, which commands work on anyway). `keep` lists what
 * stays in it read-only: git's own configuration, and each top folder of the home that holds a
 * toolchain on PATH or the node that runs teamd (~/.nvm, ~/.pyenv, ~/.cargo, ~/.local), whose
 * secret files stay hidden (secretFiles).
 */
export function privateHome(env: NodeJS.ProcessEnv, workspace: string, execPath: string): { path: string; keep: string[] } | null {
  const home = env.HOME ? path.resolve(env.HOME) : null;
  if (!home || home === '/' || home === workspace || isInside(home, workspace)) return null;
  const keep = new Set(KEPT_HOME_FILES.map((name) => path.join(home, name)));
  for (const place of [...(env.PATH ?? '').split(':'), path.dirname(execPath)]) {
    if (!place || !path.isAbsolute(place) || !isInside(place, home)) continue;
    const top = path.relative(home, place).split(path.sep)[0]!;
    keep.add(path.join(home, top));
  }
  for (const secret of secretPlaces(env)) keep.delete(secret);
  return { path: home, keep: [...keep] };
}

/**
 * The team's caches for the tools commands run (npm's, and the XDG cache pip and others use), in
 * the state folder, each made if missing, with the place in the home it is bound over: the
 * home is private to each command, and a cache there would be lost after every call.
 */
export function teamCaches(stateDir: string, env: NodeJS.ProcessEnv, make = true): { source: string; target: string }[] {
  const home = env.HOME;
  if (!home) return [];
  const caches = [
    { source: path.join(stateDir, 'cache', 'npm'), target: path.join(home, '.npm') },
    { source: path.join(stateDir, 'cache', 'xdg'), target: path.join(home, '.cache') },
  ];
  return caches.filter(({ source }) => {
    if (!make) return true;
    try {
      fs.mkdirSync(source, { recursive: true, mode: 0o700 });
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Files of the workspace a command may not rewrite though the workspace is writable: what the
 * person's own tools run later, outside any sandbox (git's hooks and its config, which can name
 * a hook folder or an fsmonitor program; the editor's and Claude Code's settings).
 */
export const PROTECTED_WORKSPACE_PATHS = ['.git/hooks', '.git/config', '.claude', '.vscode', '.idea'];

export function protectedPaths(workspace: string): string[] {
  return PROTECTED_WORKSPACE_PATHS.map((name) => path.join(workspace, name));
}

export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
