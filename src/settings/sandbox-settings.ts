import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';

/**
 * Claude Code's `sandbox` settings, the keys teamd honours: `filesystem` (allowWrite, denyWrite,
 * denyRead, allowRead) and `network` (allowedDomains, allowLocalBinding). Claude Code's other
 * keys are accepted and have no effect (docs/configuration.md says which and why): teamd's
 * sandbox is always on where bubblewrap works (config `sandbox`), and its proxy is its own.
 */
const placeText = z
  .string()
  .min(1)
  .max(4096)
  .refine((text) => !/[*?[\]{}]/.test(text), 'a sandbox path is a path, not a pattern: bubblewrap binds paths, so name the file or folder itself')
  .refine((text) => !text.includes('\0'), 'a path cannot hold a NUL byte');

const domainText = z
  .string()
  .min(1)
  .max(253)
  .refine(
    (text) => text === '*' || /^(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*$/.test(text) || /^[0-9a-fA-F:.]+$/.test(text),
    'a domain is a host name (registry.npmjs.org), its subdomains (*.example.com), an address, or * for any',
  );

const places = z.array(placeText).max(256).optional();

export const sandboxSettingsSchema = z.looseObject({
  filesystem: z
    .looseObject({
      allowWrite: places,
      denyWrite: places,
      denyRead: places,
      allowRead: places,
    })
    .optional(),
  network: z
    .looseObject({
      allowedDomains: z.array(domainText).max(1024).optional(),
      allowLocalBinding: z.boolean().optional(),
    })
    .optional(),
});
export type SandboxSettingsFile = z.infer<typeof sandboxSettingsSchema>;

/** The sandbox settings of the team's file and its role's: lists add up, the last boolean said wins; paths as written. */
export interface SandboxSettings {
  readonly allowWrite: readonly string[];
  readonly denyWrite: readonly string[];
  readonly denyRead: readonly string[];
  readonly allowRead: readonly string[];
  /** null: no file names any (teamd's default list applies). */
  readonly allowedDomains: readonly string[] | null;
  readonly allowLocalBinding: boolean;
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  allowWrite: [],
  denyWrite: [],
  denyRead: [],
  allowRead: [],
  allowedDomains: null,
  allowLocalBinding: false,
};

export function combineSandboxSettings(
  files: readonly (SandboxSettingsFile | undefined)[],
  readDenied: readonly string[] = [],
  /** permissions.additionalDirectories: Claude Code lets its sandboxed commands write there too. */
  additionalDirectories: readonly string[] = [],
): SandboxSettings {
  const present = files.filter((file): file is SandboxSettingsFile => file !== undefined);
  const list = (key: 'allowWrite' | 'denyWrite' | 'denyRead' | 'allowRead'): string[] => present.flatMap((file) => file.filesystem?.[key] ?? []);
  const domains = present.map((file) => file.network?.allowedDomains).filter((value) => value !== undefined);
  const local = present.map((file) => file.network?.allowLocalBinding).filter((value) => value !== undefined);
  return {
    allowWrite: [...list('allowWrite'), ...additionalDirectories],
    denyWrite: list('denyWrite'),
    denyRead: [...list('denyRead'), ...readDenied],
    allowRead: list('allowRead'),
    allowedDomains: domains.length === 0 ? null : domains.flat(),
    allowLocalBinding: local.at(-1) ?? false,
  };
}

/**
 * The places `Read(...)` deny rules name, which Claude Code's sandbox also hides from commands
 * (its denyRead is merged with them): a rule naming a path (`Read(./.env)`, `Read(secrets/**)`,
 * `Read(~/.kube/config)`) hides it from commands too. A pattern (`Read(**\/*.pem)`) cannot be
 * bound: it keeps the file tools away, and docs/permissions.md says to name such files in
 * sandbox.filesystem.denyRead for commands.
 */
export function placesOfReadRules(denyRules: readonly string[]): string[] {
  const places: string[] = [];
  for (const rule of denyRules) {
    const match = /^Read\((.+)\)$/s.exec(rule.trim());
    if (!match) continue;
    let place = match[1]!
      .trim()
      .replace(/\/\*\*$/, '')
      .replace(/\/$/, '');
    if (place === '' || /[*?[\]{}!]/.test(place)) continue;
    // In a rule, /x is the workspace's top (gitignore's anchor); // is the root, ~/ the home.
    if (place.startsWith('/') && !place.startsWith('//')) place = `.${place}`;
    places.push(place);
  }
  return places;
}

/**
 * A sandbox path as Claude Code reads it: `//x` and `/x` from the root, `~/x` from the home,
 * `./x` or `x` from the workspace (where the project's settings are).
 */
export function resolvePlace(text: string, where: { readonly workspace: string; readonly home: string | undefined }): string {
  if (text.startsWith('//')) return path.resolve(text.slice(1));
  if (text.startsWith('/')) return path.resolve(text);
  if (text === '~' || text.startsWith('~/')) return path.resolve(where.home ?? os.homedir(), text.slice(2));
  return path.resolve(where.workspace, text);
}
