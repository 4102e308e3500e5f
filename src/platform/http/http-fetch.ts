import type http from 'node:http';
import type https from 'node:https';
import { HttpHeaders, type HttpHeadersInit } from './http-headers.js';
import { HttpResponse } from './http-response.js';
import { HttpBody } from './http-body.js';
import { trustedWithExtra } from './extra-ca.js';
import { lazyBuiltin } from '../lazy-builtin.js';

export interface HttpRequestInit {
  readonly method?: string;
  readonly headers?: HttpHeadersInit | null;
  readonly body?: unknown;
  readonly signal?: AbortSignal | null;
}

export type HttpFetch = (input: string | URL | { readonly url: string }, init?: HttpRequestInit) => Promise<HttpResponse>;

export interface HttpClient {
  readonly fetch: HttpFetch;
  /** The same, with each body as a web ReadableStream, for a caller that pipes it (an MCP client). */
  readonly webFetch: HttpFetch;
  /** Closes the idle kept-alive connections. */
  close(): void;
}

/** An idle connection is closed after this long: below the 5 s a Node server keeps one, as undici does. */
const IDLE_SOCKET_MS = 4_000;

/**
 * fetch over node:http and node:https, for a teammate's model calls. Node's own fetch is undici,
 * whose first use costs a process ~11 MiB of heap and code it never gives back; this costs
 * ~1.5 MiB. It does what the SDK needs and no more: string or byte bodies, abort signals,
 * kept-alive connections, a streamed body (http-body.ts; webFetch gives it as a web stream). Differences from fetch: redirects are not
 * followed (the answer comes back as it is) and no compression is asked for.
 * Failures are fetch's: a TypeError "fetch failed" with the cause, or the signal's reason.
 */
export interface HttpClientOptions {
  /** NODE_EXTRA_CA_CERTS the process did not load at start (extra-ca.ts): added to its TLS connections. */
  readonly extraCaFile?: string | null;
  readonly warn?: (message: string) => void;
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  // Each protocol's module and agent are loaded by its first request: an offline teammate never
  // loads TLS, and one that never works loads neither (~3 MiB).
  const transports: { 'http:'?: Promise<Transport>; 'https:'?: Promise<Transport> } = {};
  const load = async (protocol: 'http:' | 'https:'): Promise<Transport> => {
    const module: typeof http | typeof https = protocol === 'https:' ? lazyBuiltin.https() : lazyBuiltin.http();
    const ca = protocol === 'https:' && options.extraCaFile ? await trustedWithExtra(options.extraCaFile, options.warn ?? (() => {})) : undefined;
    return { module, agent: new module.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, ...(ca ? { ca } : {}) }) };
  };
  const fetch: HttpFetch = async (input, init = {}) => {
    let url: URL;
    let body: Buffer | null;
    try {
      url = new URL(urlOf(input));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`only http: and https: URLs are fetched, not ${url.protocol}`);
      body = bodyBytes(init.body);
    } catch (error) {
      throw new TypeError('fetch failed', { cause: error });
    }
    const protocol = url.protocol;
    const transport = await (transports[protocol] ??= load(protocol));
    return new Promise<HttpResponse>((resolve, reject) => {
      const signal = init.signal ?? null;
      if (signal?.aborted) return reject(abortReason(signal));
      const method = (init.method ?? 'GET').toUpperCase();
      const headers = requestHeaders(new HttpHeaders(init.headers), method, body);
      let aborted: Error | null = null;
      let request: http.ClientRequest;
      try {
        request = transport.module.request(url, { method, headers, agent: transport.agent });
      } catch (error) {
        return reject(new TypeError('fetch failed', { cause: error }));
      }
      const onAbort = () => {
        aborted = abortReason(signal!);
        request.destroy(aborted);
        reject(aborted);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const release = () => signal?.removeEventListener('abort', onAbort);
      request.on('error', (error) => {
        release();
        reject(aborted ?? new TypeError('fetch failed', { cause: error }));
      });
      request.on('response', (incoming) => {
        incoming.once('close', release);
        const answer = new HttpResponse(
          bodyOf(incoming, () => aborted),
          {
            status: incoming.statusCode ?? 0,
            statusText: incoming.statusMessage ?? '',
            headers: responseHeaders(incoming.rawHeaders),
            url: url.href,
          },
        );
        resolve(answer);
      });
      request.end(body ?? undefined);
    });
  };
  return {
    fetch,
    webFetch: async (input, init) => {
      const response = await fetch(input, init);
      return response.body instanceof HttpBody ? response.withBody(response.body.toWeb()) : response;
    },
    close() {
      for (const transport of Object.values(transports)) void transport.then((loaded) => loaded.agent.destroy());
    },
  };
}

interface Transport {
  readonly module: typeof http | typeof https;
  readonly agent: http.Agent;
}

function urlOf(input: string | URL | { readonly url: string }): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** The signal's reason, as fetch rejects with it; one that is not an Error becomes fetch's AbortError. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

function bodyBytes(body: unknown): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  throw new TypeError('this fetch sends only a string or bytes as a body');
}

function requestHeaders(headers: HttpHeaders, method: string, body: Buffer | null): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of headers) flat[name] = value;
  // A known length instead of chunked encoding, as fetch sends for a string or bytes.
  if (body) flat['content-length'] = String(body.byteLength);
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') flat['content-length'] = '0';
  return flat;
}

function responseHeaders(raw: readonly string[]): HttpHeaders {
  const headers = new HttpHeaders();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // Node has already refused what HTTP forbids; a header fetch would reject is left out.
    }
  }
  return headers;
}

/**
 * The answer's bytes as they arrive, paused while the reader is behind. A connection that ends
 * before the last byte fails the body, as fetch does ("terminated"), or with the abort reason.
 */
function bodyOf(incoming: http.IncomingMessage, abortedWith: () => Error | null): HttpBody {
  const body = new HttpBody({
    pause: () => incoming.pause(),
    resume: () => incoming.resume(),
    cancel: () => incoming.destroy(),
  });
  incoming.on('data', (chunk: Buffer) => body.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  incoming.once('end', () => body.end());
  incoming.once('close', () => body.fail(abortedWith() ?? new TypeError('terminated', { cause: new Error('the connection closed before the answer ended') })));
  incoming.on('error', () => {
    // Reported by 'close' above; a listener keeps it from being thrown.
  });
  return body;
}
