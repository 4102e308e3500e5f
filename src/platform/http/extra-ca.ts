import fs from 'node:fs';
import { lazyBuiltin } from '../lazy-builtin.js';

/**
 * NODE_EXTRA_CA_CERTS, moved aside for a teammate. Node 20 reads and parses that file at every
 * start, before any code runs (here: +70 ms and +1.7 MiB on `node -e ''`), though a teammate
 * that talks to the offline model never opens a TLS connection. The daemon forks teammates with
 * the file under this name instead; the teammate puts NODE_EXTRA_CA_CERTS back for whatever it
 * starts, and its own TLS connections (model calls, MCP servers over HTTPS) add the file's
 * certificates when they first connect.
 */
export const DEFERRED_CA_ENV = 'TEAMD_EXTRA_CA_CERTS';

/** For a teammate's environment: NODE_EXTRA_CA_CERTS moved to DEFERRED_CA_ENV. */
export function deferExtraCa(env: NodeJS.ProcessEnv): void {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return;
  env[DEFERRED_CA_ENV] = file;
  delete env.NODE_EXTRA_CA_CERTS;
}

/**
 * In the teammate, first thing: NODE_EXTRA_CA_CERTS back in the environment (its commands and
 * servers load it as usual), and the file this process must add to its own TLS connections.
 */
export function takeDeferredCa(env: NodeJS.ProcessEnv): string | null {
  const file = env[DEFERRED_CA_ENV];
  delete env[DEFERRED_CA_ENV];
  if (!file) return null;
  env.NODE_EXTRA_CA_CERTS ??= file;
  return file;
}

/**
 * The CAs a TLS connection trusts with the file added: Node's own roots plus the file's, as
 * NODE_EXTRA_CA_CERTS gives. A file that cannot be read leaves Node's roots, with a warning, as
 * Node does at start.
 */
export async function trustedWithExtra(file: string, warn: (message: string) => void): Promise<string[] | undefined> {
  // Loaded here, by the first TLS connection: an offline teammate never loads TLS at all.
  const tls = lazyBuiltin.tls();
  try {
    return [...tls.rootCertificates, fs.readFileSync(file, 'utf8')];
  } catch (error) {
    warn(`ignoring the extra CA certificates in ${file} (NODE_EXTRA_CA_CERTS): ${(error as Error).message}`);
    return undefined;
  }
}
