import fs from 'node:fs';
import path from 'node:path';
import { resolvePlace, type SandboxSettings } from '../settings/sandbox-settings.js';
import { DEFAULT_ALLOWED_DOMAINS, type NetworkPolicy } from './net-policy.js';
import { goneWithHome, type SandboxLayout } from './sandbox.js';
import { privateHome, protectedPaths, secretFiles, secretPlaces, teamCaches } from './sandbox-places.js';

/** Where a teammate's commands run: what the sandbox starts from before the settings add or remove places. */
export interface SandboxBase {
  readonly workspace: string;
  /** Hidden from every command, whatever the settings say. */
  readonly stateDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** The node that runs teamd (it runs the network bridge inside the sandbox). */
  readonly execPath: string;
}

/** teamd's own view for commands: the secrets hidden, a private home, the team's caches, git's hooks and config read-only. */
export function baseLayout(base: SandboxBase, options: { readonly makeCaches?: boolean } = {}): SandboxLayout {
  const hidden = [base.stateDir, ...secretPlaces(base.env)];
  // The node that runs the network bridge, installed in a hidden place (/root, with the daemon's home elsewhere): its install shows again, read-only.
  const nodeHome = path.dirname(path.dirname(base.execPath));
  const nodeHidden = hidden.slice(1).some((place) => base.execPath.startsWith(`${place}${path.sep}`));
  return {
    workspace: base.workspace,
    ...(nodeHidden ? { revealed: [nodeHome] } : {}),
    hidden,
    hiddenFiles: secretFiles(base.env),
    home: privateHome(base.env, base.workspace, base.execPath),
    caches: teamCaches(base.stateDir, base.env, options.makeCaches ?? true),
    readOnly: protectedPaths(base.workspace),
  };
}

/**
 * The base view with the settings' `sandbox.filesystem` on top: allowWrite binds more places
 * read-write, denyWrite makes places read-only, denyRead hides them (a folder empty, a file
 * empty), allowRead shows a place again inside a hidden one (or brings it into the private
 * home). The state folder stays hidden whatever they say (sandbox.ts).
 */
export function layoutWith(layout: SandboxLayout, settings: SandboxSettings, base: SandboxBase): SandboxLayout {
  const where = { workspace: base.workspace, home: base.env.HOME };
  const resolve = (list: readonly string[]): string[] => list.map((text) => resolvePlace(text, where));
  const denied = resolve(settings.denyRead);
  const isFolder = (place: string): boolean => fs.statSync(place, { throwIfNoEntry: false })?.isDirectory() === true;
  return {
    ...layout,
    writable: [...(layout.writable ?? []), ...resolve(settings.allowWrite)],
    readOnly: [...(layout.readOnly ?? []), ...resolve(settings.denyWrite)],
    hidden: [...layout.hidden, ...denied.filter(isFolder)],
    hiddenFiles: [...(layout.hiddenFiles ?? []), ...denied.filter((place) => !isFolder(place))],
    revealed: [...(layout.revealed ?? []), ...resolve(settings.allowRead)],
  };
}

/** What the proxy lets through, by the settings' `sandbox.network` (teamd's registry list when they name no domain). */
export function networkPolicyOf(settings: SandboxSettings): NetworkPolicy {
  return {
    allowedDomains: settings.allowedDomains ?? DEFAULT_ALLOWED_DOMAINS,
    defaulted: settings.allowedDomains === null,
    allowLocalBinding: settings.allowLocalBinding,
  };
}

/** The effective view, a line per kind of place, for `teamd check-settings` and the docs' examples. */
export function describeLayout(layout: SandboxLayout, policy: NetworkPolicy): string[] {
  const list = (places: readonly string[] | undefined): string => (places && places.length > 0 ? places.join(', ') : '(none)');
  const present = (places: readonly string[] | undefined): string[] => (places ?? []).filter((place) => fs.existsSync(place));
  const absent = [...(layout.writable ?? []), ...(layout.revealed ?? [])].filter((place) => !fs.existsSync(place));
  const hidden = present([...layout.hidden, ...(layout.hiddenFiles ?? [])]).filter((place) => !goneWithHome(place, layout));
  const home = layout.home;
  const domains = policy.allowedDomains.length === 0 ? 'none: commands have no network' : policy.allowedDomains.join(', ');
  return [
    `read-write: ${list([layout.workspace, ...present(layout.writable)])}, a private /tmp`,
    home
      ? `home: ${home.path} is a private, empty one per command; kept read-only: ${list(present(home.keep))}; caches: ${list((layout.caches ?? []).map((cache) => cache.target))}`
      : 'home: the real one, read-only (it is inside the workspace, or HOME is not set)',
    `read-only inside writable places: ${list(present(layout.readOnly))}`,
    `hidden (empty): ${list(hidden)}`,
    `shown again: ${list(present(layout.revealed))}`,
    ...(absent.length > 0 ? [`named in the settings but absent (nothing to bind): ${list(absent)}`] : []),
    `network: only through teamd's proxy; allowed domains: ${domains}${policy.defaulted ? " (teamd's default: package registries)" : ''}; this machine's own addresses: ${policy.allowLocalBinding ? 'allowed (allowLocalBinding)' : 'refused'}`,
    'everything else: read-only',
  ];
}
