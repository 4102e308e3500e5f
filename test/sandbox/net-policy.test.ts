import { describe, expect, it } from 'vitest';
import { addressAllowed, hostAllowed, urlHostAllowed, type NetworkPolicy } from '../../src/sandbox/net-policy.js';
import { parseRequestLine } from '../../src/sandbox/net-proxy.js';

const policy = (allowedDomains: string[], allowLocalBinding = false): NetworkPolicy => ({ allowedDomains, defaulted: false, allowLocalBinding });

describe('which hosts the proxy lets commands reach', () => {
  it('matches a name exactly or by its subdomains, case and a trailing dot aside; * is any name', () => {
    const p = policy(['registry.npmjs.org', '*.example.com']);
    expect(hostAllowed('registry.npmjs.org', p).allowed).toBe(true);
    expect(hostAllowed('REGISTRY.npmjs.org.', p).allowed).toBe(true);
    expect(hostAllowed('a.b.example.com', p).allowed).toBe(true);
    // The apex is not a subdomain; a longer name ending the same way is not one either.
    expect(hostAllowed('example.com', p).allowed).toBe(false);
    expect(hostAllowed('evilexample.com', p).allowed).toBe(false);
    expect(hostAllowed('registry.npmjs.org.evil.com', p).allowed).toBe(false);
    expect(hostAllowed('evil.com', p)).toEqual({ allowed: false, why: 'evil.com is not in sandbox.network.allowedDomains' });
    expect(hostAllowed('anything.at.all', policy(['*'])).allowed).toBe(true);
    expect(hostAllowed('bad host\r\n', policy(['*'])).allowed).toBe(false);
    expect(hostAllowed('registry.npmjs.org', policy([])).allowed).toBe(false);
  });

  it("never this machine's own addresses unless allowLocalBinding, never link-local (cloud metadata) unless that address is listed", () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '0.0.0.0', '::1', '::', '::ffff:127.0.0.1'])
      expect(addressAllowed(address, 'x', policy(['*'])).allowed, address).toBe(false);
    expect(addressAllowed('127.0.0.1', 'x', policy(['*'], true)).allowed).toBe(true);
    expect(addressAllowed('169.254.169.254', 'x', policy(['*'], true)).allowed).toBe(false);
    expect(addressAllowed('fe80::1', 'x', policy(['*'], true)).allowed).toBe(false);
    expect(addressAllowed('169.254.169.254', 'x', policy(['169.254.169.254'])).allowed).toBe(true);
    expect(addressAllowed('93.184.216.34', 'x', policy(['*'])).allowed).toBe(true);
    // A URL the teammate fetches itself: a literal address or localhost is judged as that address.
    expect(urlHostAllowed('localhost', policy(['localhost'])).allowed).toBe(false);
    expect(urlHostAllowed('[::1]', policy(['::1'])).allowed).toBe(false);
    expect(urlHostAllowed('mcp.example.com', policy(['*.example.com'])).allowed).toBe(true);
  });

  it('reads CONNECT host:port and absolute http URIs, and nothing else', () => {
    expect(parseRequestLine('CONNECT registry.npmjs.org:443 HTTP/1.1')).toEqual({ kind: 'connect', host: 'registry.npmjs.org', port: 443 });
    expect(parseRequestLine('CONNECT [::1]:22 HTTP/1.1')).toEqual({ kind: 'connect', host: '::1', port: 22 });
    expect(parseRequestLine('GET http://Example.com:8080/a?b HTTP/1.1')).toEqual({
      kind: 'http',
      host: 'example.com',
      port: 8080,
      method: 'GET',
      path: '/a?b',
      version: 'HTTP/1.1',
    });
    for (const line of [
      'GET /relative HTTP/1.1',
      'CONNECT host HTTP/1.1',
      'CONNECT host:99999 HTTP/1.1',
      'GET https://x/ HTTP/1.1',
      'GET http://u:p@x/ HTTP/1.1',
      'get http://x/ HTTP/1.1',
      'GET http://x/ HTTP/2',
    ])
      expect(parseRequestLine(line), line).toBeNull();
  });
});
