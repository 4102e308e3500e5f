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
const webStreamsLoaded =
  "['readablestream', 'writablestream', 'transformstream'].some((name) => process.moduleLoadList.includes('NativeModule internal/webstreams/' + name))";

describe('a teammate process keeps undici and web streams unloaded', () => {
  it('the SDK streams a whole answer through HttpHeaders, node:http and the stall watchdog, and Node loads neither undici nor its web streams', () => {
    const result = inFreshNode(`
      import http from 'node:http';
      import { keepWebGlobalsUnloaded } from './dist/src/platform/http/web-globals.js';
      import { createHttpClient } from './dist/src/platform/http/http-fetch.js';
      import { StallWatchdog } from './dist/src/model/stall-watchdog.js';
      keepWebGlobalsUnloaded(globalThis);
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
      let stalled = false;
      const watchdog = new StallWatchdog(30_000, () => (stalled = true));
      const client = new Anthropic({ apiKey: 'the-key', baseURL: 'http://127.0.0.1:' + server.address().port, fetch: watchdog.wrap(httpClient.fetch), maxRetries: 0 });
      const message = await client.messages.stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      const before = ${undiciLoaded};
      const webStreams = ${webStreamsLoaded};
      // The last byte disarmed the watchdog: nothing is left to keep the process running.
      const armed = watchdog.timer !== null;
      httpClient.close();
      server.close();
      console.log(JSON.stringify({ text: message.content[0].text, stop: message.stop_reason, seenKey, undici: before, webStreams, armed, stalled }));
    `);
    expect(result).toEqual({ text: 'all done', stop: 'end_turn', seenKey: 'Bearer the-key', undici: false, webStreams: false, armed: false, stalled: false });
  });

  it('FormData stays Node’s: instanceof is false without loading undici, and constructing one works', () => {
    const result = inFreshNode(`
      import { keepWebGlobalsUnloaded } from './dist/src/platform/http/web-globals.js';
      keepWebGlobalsUnloaded(globalThis);
      const plain = ({}) instanceof FormData;
      const loadedByCheck = ${undiciLoaded};
      const form = new FormData();
      form.append('a', '1');
      console.log(JSON.stringify({ plain, loadedByCheck, made: form instanceof FormData, value: form.get('a'), headersIsOurs: new Headers().constructor.name }));
    `);
    expect(result).toEqual({ plain: false, loadedByCheck: false, made: true, value: '1', headersIsOurs: 'HttpHeaders' });
  });

  it('ReadableStream stays Node’s: instanceof is false without loading it; constructing, extending and its statics work', () => {
    const result = inFreshNode(`
      import { keepWebGlobalsUnloaded } from './dist/src/platform/http/web-globals.js';
      keepWebGlobalsUnloaded(globalThis);
      const plain = ({}) instanceof ReadableStream;
      const loadedByCheck = ${webStreamsLoaded};
      const stream = new ReadableStream({ start(controller) { controller.enqueue('a'); controller.close(); } });
      class Counted extends ReadableStream {}
      const counted = new Counted();
      const chunks = [];
      for await (const chunk of ReadableStream.from(['x', 'y'])) chunks.push(chunk);
      const reader = stream.getReader();
      console.log(JSON.stringify({ plain, loadedByCheck, made: stream instanceof ReadableStream, read: (await reader.read()).value, extended: counted instanceof ReadableStream && counted instanceof Counted, chunks, loaded: ${webStreamsLoaded} }));
    `);
    expect(result).toEqual({ plain: false, loadedByCheck: false, made: true, read: 'a', extended: true, chunks: ['x', 'y'], loaded: true });
  });
});
