import net from 'node:net';

/**
 * What a teammate's commands may reach through the proxy (settings `sandbox.network`). A host
 * is named in `allowedDomains` exactly (`registry.npmjs.org`), by its subdomains
 * (`*.example.com`, not example.com itself), or by `*` (any name). Whatever the name, the
 * address it resolves to must not be the host's own (loopback, unspecified) unless
 * `allowLocalBinding` is set, nor link-local (cloud metadata at 169.254.169.254) unless that
 * very address is listed.
 */
export interface NetworkPolicy {
  readonly allowedDomains: readonly string[];
  /** True when the list is teamd's default (package registries), not one the settings named. */
  readonly defaulted: boolean;
  readonly allowLocalBinding: boolean;
}

/**
 * The domains commands reach when the settings name none: the package registries npm, yarn,
 * pip, cargo and go fetch from, so installs work. An explicit choice, shown by
 * `teamd check-settings`; `"allowedDomains": []` turns the network off for commands.
 */
export const DEFAULT_ALLOWED_DOMAINS: readonly string[] = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'static.crates.io',
  'index.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
];

export type NetVerdict = { readonly allowed: true } | { readonly allowed: false; readonly why: string };

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/;

/** Whether the settings let a command ask for `host` at all (before it is resolved). */
export function hostAllowed(host: string, policy: NetworkPolicy): NetVerdict {
  const name = normalHost(host);
  if (name === null) return { allowed: false, why: `"${host.slice(0, 100)}" is not a host name` };
  for (const entry of policy.allowedDomains) {
    const pattern = entry.toLowerCase();
    if (pattern === '*' || pattern === name) return { allowed: true };
    if (pattern.startsWith('*.') && name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1) return { allowed: true };
  }
  return { allowed: false, why: `${name} is not in sandbox.network.allowedDomains` };
}

/** Whether the address `host` resolved to may be reached: never the host's own or link-local, unless the settings say so. */
export function addressAllowed(address: string, host: string, policy: NetworkPolicy): NetVerdict {
  const kind = addressKind(address);
  if (kind === 'local' && !policy.allowLocalBinding)
    return { allowed: false, why: `${host} is this machine (${address}); set sandbox.network.allowLocalBinding to reach it` };
  if (kind === 'link-local' && !policy.allowedDomains.includes(address))
    return { allowed: false, why: `${host} resolves to the link-local address ${address} (cloud metadata); list the address itself to reach it` };
  return { allowed: true };
}

/** A host as the proxy compares it: lower case, brackets and a trailing dot gone; null for what is neither a name nor an address. */
export function normalHost(host: string): string | null {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (net.isIP(name)) return name;
  if (name.endsWith('.')) name = name.slice(0, -1);
  return name.length > 0 && name.length <= 253 && HOST_NAME.test(name) ? name : null;
}

function addressKind(address: string): 'local' | 'link-local' | 'other' {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (net.isIPv4(v4)) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    if (a === 127 || a === 0) return 'local';
    if (a === 169 && b === 254) return 'link-local';
    return 'other';
  }
  const lower = address.toLowerCase();
  if (lower === '::1' || lower === '::') return 'local';
  if (/^fe[89ab]/.test(lower)) return 'link-local';
  return 'other';
}

/**
 * The check for a URL the teammate itself fetches on a command's say (a workspace MCP server over
 * HTTP): its host as the proxy would judge it, without resolving it; a literal address or
 * `localhost` is judged as the address it is.
 */
export function urlHostAllowed(host: string, policy: NetworkPolicy): NetVerdict {
  const name = normalHost(host);
  const named = hostAllowed(host, policy);
  if (!named.allowed || name === null) return named;
  if (net.isIP(name)) return addressAllowed(name, name, policy);
  if (name === 'localhost' || name.endsWith('.localhost')) return addressAllowed('127.0.0.1', name, policy);
  return named;
}
