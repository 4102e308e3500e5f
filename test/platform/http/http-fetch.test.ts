import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClient } from '../../../src/platform/http/http-fetch.js';
import { HttpHeaders } from '../../../src/platform/http/http-headers.js';

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

const servers: http.Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A real server on a free port; `connections` counts the TCP connections it accepted. */
async function serve(handler: Handler): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handler(request, response, body));
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

function client(): HttpClient {
  const made = createHttpClient();
  clients.push(made);
  return made;
}

describe('fetch over node:http', () => {
  it('sends the method, headers and body, and gives back status, headers and the body as text and JSON', async () => {
    let seen: { method?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    const { url } = await serve((request, response, body) => {
      seen = { method: request.method, headers: request.headers, body };
      response.writeHead(201, 'Made', { 'content-type': 'application/json', 'request-id': 'req_1', 'x-twice': ['a', 'b'] });
      response.end(JSON.stringify({ ok: true }));
    });
    const response = await client().fetch(`${url}/v1/messages?beta=true`, {
      method: 'post',
      headers: new HttpHeaders({ 'Content-Type': 'application/json', 'X-Api-Key': 'k' }),
      body: '{"hello":"wörld"}',
    });
    expect(seen.method).toBe('POST');
    expect(seen.headers?.['content-type']).toBe('application/json');
    expect(seen.headers?.['x-api-key']).toBe('k');
    expect(seen.headers?.['content-length']).toBe(String(Buffer.byteLength('{"hello":"wörld"}')));
    expect(seen.headers?.['transfer-encoding']).toBeUndefined();
    expect(seen.body).toBe('{"hello":"wörld"}');
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${url}/v1/messages?beta=true`);
    expect(response.headers.get('Request-Id')).toBe('req_1');
    expect(response.headers.get('x-twice')).toBe('a, b');
    expect(await response.json()).toEqual({ ok: true });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(/already been read/);
  });

  it('takes headers as a record or pairs, and an error status is an answer, not a failure', async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(529, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: String(request.headers['x-a']) } }));
    });
    const fetch = client().fetch;
    const fromRecord = await fetch(url, { headers: { 'x-a': 'record' } });
    expect(fromRecord.ok).toBe(false);
    expect(fromRecord.status).toBe(529);
    expect(await fromRecord.text()).toContain('record');
    const fromPairs = await fetch(new URL(url), { headers: [['x-a', 'pairs']] });
    expect(await fromPairs.text()).toContain('pairs');
  });

  it('streams the body as it arrives, and a second request reuses the kept-alive connection', async () => {
    let sendRest: () => void = () => {};
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const { url, connections } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: one\n\n');
      void rest.then(() => response.end('event: two\n\n'));
    });
    const fetch = client().fetch;
    const response = await fetch(url, { method: 'POST', body: '{}' });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('event: one\n\n');
    // The second event is only sent after the first was read: the stream did not wait for the end.
    sendRest();
    let text = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(text).toBe('event: two\n\n');
    sendRest();
    await (await fetch(url, { method: 'POST', body: '{}' })).text();
    expect(connections()).toBe(1);
  });

  it('a connection cut in the middle of the body errors the stream ("terminated"), as fetch does', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: partial\n\n', () => response.socket?.destroy());
    });
    const response = await client().fetch(url);
    const error = await response.text().then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('terminated');
  });

  it('an abort before the answer rejects with the AbortError; an abort mid-body errors the stream with it', async () => {
    let answer: http.ServerResponse | null = null;
    const { url } = await serve((_request, response) => {
      answer = response;
      response.writeHead(200);
      response.write('first');
    });
    const fetch = client().fetch;
    const early = new AbortController();
    early.abort();
    await expect(fetch(url, { signal: early.signal })).rejects.toMatchObject({ name: 'AbortError' });

    const late = new AbortController();
    const response = await fetch(url, { signal: late.signal });
    const reader = response.body!.getReader();
    await reader.read();
    late.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(answer).not.toBeNull();
  });

  it('a refused connection is a TypeError "fetch failed" with the cause; so are a bad URL and a body it cannot send', async () => {
    const { url } = await serve((_request, response) => response.end());
    const port = new URL(url).port;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const fetch = client().fetch;
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).toBe('fetch failed');
    expect(((refused as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    await expect(fetch('ftp://example.invalid/')).rejects.toMatchObject({ message: 'fetch failed' });
    await expect(fetch('not a url')).rejects.toMatchObject({ message: 'fetch failed' });
    await expect(fetch(url, { method: 'POST', body: { an: 'object' } })).rejects.toMatchObject({ message: 'fetch failed' });
  });
});
