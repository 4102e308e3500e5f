import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Runs an ES module in a fresh Node process from the checkout and returns its last line of output, parsed. */
function inFreshNode(source: string): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
}

const undiciLoaded = "process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')";

describe('a teammate process keeps undici unloaded', () => {
  it('the SDK streams a whole answer through HttpHeaders and node:http, and Node never loads undici', () => {
    const result = inFreshNode(`
      import http from 'node:http';
      import { keepUndiciUnloaded } from './dist/src/model/http/web-globals.js';
      import { createHttpClient } from './dist/src/model/http/http-fetch.js';
      keepUndiciUnloaded(globalThis);
      const events = [
        ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 } } }],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'all done' } }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }],
        ['message_stop', { type: 'message_stop' }],
      ];
      let seenKey = null;
      const server = http.createServer((request, response) => {
        seenKey = request.headers['authorization'];
        request.resume();
        request.on('end', () => {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const [name, data] of events) response.write('event: ' + name + '\\ndata: ' + JSON.stringify(data) + '\\n\\n');
          response.end();
        });
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      const httpClient = createHttpClient();
      const client = new Anthropic({ apiKey: 'the-key', baseURL: 'http://127.0.0.1:' + server.address().port, fetch: httpClient.fetch, maxRetries: 0 });
      const message = await client.messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      const before = ${undiciLoaded};
      httpClient.close();
      server.close();
      console.log(JSON.stringify({ text: message.content[0].text, stop: message.stop_reason, seenKey, undici: before }));
    `);
    expect(result).toEqual({ text: 'all done', stop: 'end_turn', seenKey: 'Bearer the-key', undici: false });
  });

  it('FormData stays Node’s: instanceof is false without loading undici, and constructing one works', () => {
    const result = inFreshNode(`
      import { keepUndiciUnloaded } from './dist/src/model/http/web-globals.js';
      keepUndiciUnloaded(globalThis);
      const plain = ({}) instanceof FormData;
      const loadedByCheck = ${undiciLoaded};
      const form = new FormData();
      form.append('a', '1');
      console.log(JSON.stringify({ plain, loadedByCheck, made: form instanceof FormData, value: form.get('a'), headersIsOurs: new Headers().constructor.name }));
    `);
    expect(result).toEqual({ plain: false, loadedByCheck: false, made: true, value: '1', headersIsOurs: 'HttpHeaders' });
  });
});
