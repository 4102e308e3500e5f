import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Who may use the dashboard: the holder of its token, from a page of its own origin (docs/dashboard.md, "Security"). */
export interface UiAccess {
  readonly token: string;
  /** The port it listens on: the cookie is named after it (cookies are per host, not per port). */
  readonly port: number;
  /** Host headers it answers besides 127.0.0.1, localhost and [::1] on its port (a reverse proxy's name, the interface the settings name). */
  readonly extraHosts: readonly string[];
}

export type Verdict = { readonly ok: true; readonly tokenFromUrl: boolean } | { readonly ok: false; readonly status: 401 | 403 | 421; readonly reason: string };

/** A new token: 32 random bytes, URL-safe. */
export function newUiToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function cookieName(access: Pick<UiAccess, 'port'>): string {
  return `teamd_ui_${access.port}`;
}

/** The value a page sends back in X-Teamd-Csrf on every change it asks for; derived from the token, so it needs no state. */
export function csrfValue(access: Pick<UiAccess, 'token'>): string {
  return crypto.createHmac('sha256', access.token).update('teamd ui csrf').digest('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

function cookieOf(request: IncomingMessage, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return null;
}

function allowedHost(access: UiAccess, host: string | undefined): boolean {
  if (!host) return false;
  const local = ['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${access.port}`);
  return [...local, ...access.extraHosts].includes(host.toLowerCase());
}

/**
 * Whether a request may be answered. Every request: a Host header the server knows (another name
 * is a DNS-rebinding page pointing its own host name at 127.0.0.1), and the token, from the
 * Authorization header, the cookie, or (a page load only) the URL. A change (any method but GET
 * and HEAD) also needs its Origin to be this server's, a JSON body, and the CSRF value only a page
 * of this origin was given: a form or script of another site can send none of them.
 */
export function checkRequest(access: UiAccess, request: IncomingMessage, url: URL): Verdict {
  const host = request.headers.host;
  if (!allowedHost(access, host)) return { ok: false, status: 421, reason: `this dashboard does not answer for the host ${JSON.stringify(host ?? '')}` };
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? null;
  const fromUrl = request.method === 'GET' && url.pathname === '/' ? url.searchParams.get('token') : null;
  const given = bearer ?? cookieOf(request, cookieName(access)) ?? fromUrl;
  if (given === null || !sameSecret(given, access.token)) return { ok: false, status: 401, reason: 'no valid token: open the URL teamd ui printed' };
  if (request.method === 'GET' || request.method === 'HEAD') return { ok: true, tokenFromUrl: given === fromUrl && bearer === null };
  const origin = request.headers.origin;
  // https: the same host behind a reverse proxy that ends TLS.
  if (origin !== `http://${host}` && origin !== `https://${host}` && !(origin === undefined && bearer !== null))
    return { ok: false, status: 403, reason: `a change from another origin (${origin ?? 'none given'}) is refused` };
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return { ok: false, status: 403, reason: `a change from a ${site} page is refused` };
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) return { ok: false, status: 403, reason: 'a change must be sent as JSON' };
  const csrf = request.headers['x-teamd-csrf'];
  if (bearer === null && (typeof csrf !== 'string' || !sameSecret(csrf, csrfValue(access))))
    return { ok: false, status: 403, reason: 'the CSRF value is missing or wrong: reload the page' };
  return { ok: true, tokenFromUrl: false };
}

/** The cookie that keeps the token once the page has loaded with it: not readable by scripts, never sent by another site. */
export function tokenCookie(access: UiAccess): string {
  return `${cookieName(access)}=${encodeURIComponent(access.token)}; HttpOnly; SameSite=Strict; Path=/`;
}
