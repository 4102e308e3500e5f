import os from 'node:os';
import path from 'node:path';
import { TeamdError } from '../errors.js';
import type { StatePaths } from '../paths.js';
import type { TeamSettings } from '../contracts/roster.js';
import type { StoreSetting } from '../contracts/team-store.js';

export const STORE_ENV = 'TEAMD_STORE';

/** The store this command or process uses: TEAMD_STORE, else the `store` setting, else files. */
export function storeSetting(paths: StatePaths, settings: Pick<TeamSettings, 'store' | 'team' | 'host'>, env: NodeJS.ProcessEnv = process.env): StoreSetting {
  const raw = env[STORE_ENV] || settings.store;
  return parseStore(raw, {
    team: settings.team ?? teamNameOf(path.basename(path.dirname(paths.root))),
    host: settings.host ?? teamNameOf(os.hostname()),
  });
}

export function parseStore(raw: string, names: { readonly team: string; readonly host: string }): StoreSetting {
  if (raw === 'files') return { kind: 'files' };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new TeamdError('USAGE', `the store ${redactUrl(raw)} is not a valid URL: write postgres://user:password@host:5432/database`);
    }
    return { kind: 'postgres', url: raw, team: names.team, host: names.host };
  }
  throw new TeamdError('USAGE', `unknown store "${redactUrl(raw)}": it is "files" or a PostgreSQL URL (postgres://user:password@host:5432/database)`);
}

/** A folder or host name made a valid team or host name: other characters become "-". */
export function teamNameOf(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return cleaned || 'team';
}

/** A store URL fit for logs and messages: the password replaced. */
export function redactUrl(url: string): string {
  // Parsed as the driver parses it (the last @ ends the password); a URL that does not parse is not shown at all.
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Without an @ it names no user and no password (a typo of "files", say): shown as written.
    return url.includes('@') ? '(a store URL that does not parse; not shown)' : url;
  }
  if (parsed.password) parsed.password = '***';
  for (const key of ['password', 'sslpassword']) if (parsed.searchParams.has(key)) parsed.searchParams.set(key, '***');
  return parsed.toString();
}

/** How `teamd status` and logs name a store. */
export function describeStore(setting: StoreSetting): string {
  return setting.kind === 'files' ? 'files' : `${redactUrl(setting.url)} (team ${setting.team}, host ${setting.host})`;
}

/** Whether two settings name one store (the same folder, or the same team in the same database). */
export function sameStore(a: StoreSetting, b: StoreSetting): boolean {
  if (a.kind === 'files' || b.kind === 'files') return a.kind === b.kind;
  return a.url === b.url && a.team === b.team;
}

/** The store's URL where it is one several hosts share, or a usage error saying `why` it needs one. */
export function sharedStoreUrl(setting: StoreSetting, why: string): string {
  if (setting.kind === 'files') throw new TeamdError('USAGE', why);
  return setting.url;
}

/** How `teamd start` is told to use a store: `--store files`, or its redacted URL and the team. */
export function startFlagsFor(setting: StoreSetting): string {
  return setting.kind === 'files' ? '--store files' : `--store ${redactUrl(setting.url)} --team ${setting.team}`;
}
