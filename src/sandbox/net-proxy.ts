import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';
import type { Logger } from '../log/logger.js';
import { addressAllowed, hostAllowed, normalHost, type NetworkPolicy, type NetVerdict } from './net-policy.js';

/** A request's head larger than this is refused: a proxy request is one line and a few headers. */
const MAX_HEAD_BYTES = 16 * 1024;
/** An upstream that does not accept the connection in this long is reported unreachable. */
const CONNECT_TIMEOUT_MS = 15_000;
/** Connections open at once through one teammate's proxy. */
const MAX_CONNECTIONS = 256;
/** A client that sends no complete request head in this long is dropped. */
const HEAD_TIMEOUT_MS = 30_000;

export interface NetProxyDeps {
  /** The settings in force, read at every request (a changed settings file applies to the next connection). */
  readonly policy: () => NetworkPolicy;
  readonly logger: Logger;
  /** Told of every refused request (teamd status counts them). */
  readonly refused: (host: string, why: string) => void;
  /** Resolves a name to its addresses (dns.lookup by default). */
  readonly lookup?: (host: string) => Promise<readonly string[]>;
}

/**
 * The host side of a teammate's network leash: an HTTP proxy (CONNECT for TLS, absolute URIs
 * for plain HTTP) listening on a Unix socket that is bound into each sandbox, whose network
 * namespace has nothing else. It lets through only the hosts the settings allow, connects to
 * the address it checked (so a name cannot resolve to one thing for the check and another for
 * the connection), and logs each refusal.
 */
export class NetProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly deps: NetProxyDeps) {
    this.server = net.createServer((client) => this.accept(client));
    // A command that opens connections without end runs out of them here, not the teammate out of descriptors.
    this.server.maxConnections = MAX_CONNECTIONS;
  }

  /** Listens on `socketPath` (made 0600; a stale socket left by a crash is replaced). */
  async listen(socketPath: string): Promise<void> {
    try {
      fs.unlinkSync(socketPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(socketPath, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(socketPath, 0o600);
    this.server.on('error', (error) => this.deps.logger.error({ err: error }, 'network proxy failed'));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.setTimeout(HEAD_TIMEOUT_MS, () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) this.answer(client, 431, 'request head too large');
        return;
      }
      client.off('data', onData);
      client.pause();
      client.setTimeout(0);
      void this.route(client, head.subarray(0, end + 4), head.subarray(end + 4));
    };
    client.on('data', onData);
  }

  private async route(client: net.Socket, head: Buffer, rest: Buffer): Promise<void> {
    const text = head.toString('latin1');
    const firstLine = text.slice(0, text.indexOf('\r\n'));
    const request = parseRequestLine(firstLine);
    if (!request) return this.answer(client, 400, 'not a proxy request (CONNECT host:port, or an absolute http:// URI)');
    const verdict = await this.check(request.host);
    if (!verdict.allowed) {
      this.deps.logger.warn({ host: request.host, port: request.port, why: verdict.why }, 'network: refused a connection from a command');
      this.deps.refused(request.host, verdict.why);
      return this.answer(client, 403, verdict.why);
    }
    const upstream = net.connect({ host: verdict.address, port: request.port });
    this.track(upstream);
    upstream.setTimeout(CONNECT_TIMEOUT_MS, () => {
      upstream.destroy();
      this.answer(client, 504, `${request.host}:${request.port} did not answer`);
    });
    upstream.once('error', (error) => this.answer(client, 502, `${request.host}:${request.port}: ${error.message}`));
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      upstream.removeAllListeners('error');
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      if (request.kind === 'connect') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      else upstream.write(Buffer.concat([Buffer.from(`${request.method} ${request.path} ${request.version}`, 'latin1'), head.subarray(firstLine.length)]));
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }

  private async check(host: string): Promise<NetVerdict & { address?: string }> {
    const policy = this.deps.policy();
    const named = hostAllowed(host, policy);
    if (!named.allowed) return named;
    let addresses: readonly string[];
    try {
      addresses = net.isIP(host) ? [host] : await (this.deps.lookup ?? lookupAll)(host);
    } catch (error) {
      return { allowed: false, why: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    if (addresses.length === 0) return { allowed: false, why: `${host} does not resolve` };
    // Every address must pass: a name that resolves to the host's own address among others is refused.
    for (const address of addresses) {
      const verdict = addressAllowed(address, host, policy);
      if (!verdict.allowed) return verdict;
    }
    return { allowed: true, address: addresses[0]! };
  }

  private answer(client: net.Socket, status: number, why: string): void {
    if (client.destroyed) return;
    const body = `teamd network proxy: ${why}\n`;
    client.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

type ProxyRequest =
  | { readonly kind: 'connect'; readonly host: string; readonly port: number }
  | { readonly kind: 'http'; readonly host: string; readonly port: number; readonly method: string; readonly path: string; readonly version: string };

/** `CONNECT host:443 HTTP/1.1`, or `GET http://host[:port]/path HTTP/1.1`; null for anything else. */
export function parseRequestLine(line: string): ProxyRequest | null {
  const parts = line.split(' ');
  if (parts.length !== 3) return null;
  const [method, target, version] = parts as [string, string, string];
  if (!/^HTTP\/1\.[01]$/.test(version) || !/^[A-Z]{1,16}$/.test(method)) return null;
  if (method === 'CONNECT') {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d{1,5})$/.exec(target);
    const host = match ? normalHost(match[1]!) : null;
    const port = match ? Number(match[2]) : 0;
    return host && port > 0 && port < 65536 ? { kind: 'connect', host, port } : null;
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  const host = normalHost(url.hostname);
  if (url.protocol !== 'http:' || !host || url.username || url.password) return null;
  return { kind: 'http', host, port: url.port ? Number(url.port) : 80, method, path: `${url.pathname}${url.search}`, version };
}

async function lookupAll(host: string): Promise<readonly string[]> {
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}
