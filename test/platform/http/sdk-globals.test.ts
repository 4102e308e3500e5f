import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/processes.js';

/**
 * Node's lazily made globals (accessors on globalThis) that SDK 1.14 reads through the HTTP layer,
 * each checked to load neither undici nor Node's web streams: Node's own, made at its start or from
 * modules every process has (reading all of them loads internal/abort_controller and nothing else, on Node 20.20). Headers, FormData and ReadableStream are not
 * here: the layer replaces them (web-globals.ts). A global the SDK reads that is not in this list
 * fails the test below: see whether reading it loads undici or the web streams (process.moduleLoadList
 * before and after), then replace it in web-globals.ts or add it here.
 */
const VETTED_GLOBALS = ['AbortController', 'AbortSignal', 'Blob', 'Buffer', 'DOMException', 'TextDecoder', 'TextEncoder', 'process'];

/**
 * In a fresh Node: every accessor global counts its reads, the teammate's HTTP layer goes in as
 * the teammate's entry puts it, then the SDK is loaded and asked for an answer, a streamed answer,
 * a 429 and a call aborted mid-way. Prints the globals read, and whether undici or the web streams loaded.
 */
const PROBE = `
const read = new Set();
for (const name of Object.getOwnPropertyNames(globalThis)) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
  if (!descriptor.get || !descriptor.configurable) continue;
  Object.defineProperty(globalThis, name, { ...descriptor, get() { read.add(name); return descriptor.get.call(this); } });
}
const { keepWebGlobalsUnloaded } = await import('./dist/src/platform/http/web-globals.js');
keepWebGlobalsUnloaded(globalThis);
const http = await import('node:http');
const { createHttpClient } = await import('./dist/src/platform/http/http-fetch.js');
const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
const events = [
  ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }],
  ['message_stop', { type: 'message_stop' }],
];
const server = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const asked = JSON.parse(body).messages[0].content;
    if (asked === 'limit') {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      return response.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }));
    }
    if (asked === 'hang') return response.writeHead(200, { 'content-type': 'text/event-stream' });
    if (JSON.parse(body).stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [name, data] of events) response.write('event: ' + name + '\\ndata: ' + JSON.stringify(data) + '\\n\\n');
      return response.end();
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(message));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { default: Anthropic } = await import('@anthropic-ai/sdk');
const httpClient = createHttpClient();
const client = new Anthropic({ apiKey: 'k', baseURL: 'http://127.0.0.1:' + server.address().port, fetch: httpClient.fetch, maxRetries: 0 });
const ask = (content) => ({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content }] });
const plain = await client.messages.create(ask('plain'));
const streamed = await client.messages.stream(ask('stream')).finalMessage();
const limited = await client.messages.create(ask('limit')).then(() => 'answered', (error) => error.constructor.name);
const aborter = new AbortController();
const hung = client.messages.stream(ask('hang'), { signal: aborter.signal }).finalMessage().then(() => 'answered', (error) => error.constructor.name);
setTimeout(() => aborter.abort(), 50);
const aborted = await hung;
httpClient.close();
server.close();
const loaded = (name) => process.moduleLoadList.includes('NativeModule internal/' + name);
console.log(JSON.stringify({
  answers: [plain.content[0].text, streamed.content[0].text, limited, aborted],
  read: [...read].sort(),
  undici: loaded('deps/undici/undici'),
  webStreams: loaded('webstreams/readablestream'),
}));
`;

describe("the SDK's use of Node's globals, through the teammate's HTTP layer (web-globals.ts)", () => {
  it('reads no lazily made global but the vetted ones, and loads neither undici nor the web streams', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], { cwd: REPO_ROOT, encoding: 'utf8' });
    const seen = JSON.parse(out.trim().split('\n').pop()!) as { answers: string[]; read: string[]; undici: boolean; webStreams: boolean };
    expect(seen.answers).toEqual(['hi', 'hi', 'RateLimitError', 'APIUserAbortError']);
    expect(seen.read.filter((name) => !VETTED_GLOBALS.includes(name))).toEqual([]);
    expect({ undici: seen.undici, webStreams: seen.webStreams }).toEqual({ undici: false, webStreams: false });
  });

  it('is measured on the SDK version package.json pins to its minor release', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const installed = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules/@anthropic-ai/sdk/package.json'), 'utf8')) as { version: string };
    // The HTTP layer depends on what this SDK does inside: a new minor release comes in only with this test run on it.
    expect(manifest.dependencies['@anthropic-ai/sdk']).toBe('~1.14.0');
    expect(installed.version).toMatch(/^1\.14\./);
  });
});
