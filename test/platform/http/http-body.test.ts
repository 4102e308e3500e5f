import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpBody, type BodySource } from '../../../src/platform/http/http-body.js';
import { createHttpClient } from '../../../src/platform/http/http-fetch.js';

/** A source that records what the body asked of it. */
function recorder(): BodySource & { calls: string[] } {
  const calls: string[] = [];
  return { calls, pause: () => calls.push('pause'), resume: () => calls.push('resume'), cancel: () => calls.push('cancel') };
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (chunk: Uint8Array): string => new TextDecoder().decode(chunk);

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  let all = '';
  for await (const chunk of body) all += text(chunk);
  return all;
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('HttpBody', () => {
  it('pauses its source once 16 chunks wait unread, and resumes it when the reader has caught up to 8', async () => {
    const source = recorder();
    const body = new HttpBody(source);
    for (let i = 0; i < 20; i++) body.push(bytes(String(i % 10)));
    expect(source.calls).toEqual(['pause']);
    const iterator = body[Symbol.asyncIterator]();
    for (let i = 0; i < 12; i++) await iterator.next();
    expect(source.calls).toEqual(['pause', 'resume']);
    body.end();
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += text(next.value);
    expect(rest).toBe('23456789');
    expect(source.calls).toEqual(['pause', 'resume']);
  });

  it('a reader waiting for the next chunk gets it as it arrives, and the end after it', async () => {
    const body = HttpBody.fed();
    const iterator = body[Symbol.asyncIterator]();
    const first = iterator.next();
    body.push(bytes('late'));
    expect(text((await first).value!)).toBe('late');
    const second = iterator.next();
    body.end();
    expect(await second).toEqual({ done: true, value: undefined });
  });

  it('a failure drops what was not read, as a web stream does, and every later read rejects with it', async () => {
    const body = HttpBody.fed();
    body.push(bytes('unread'));
    const failure = new TypeError('terminated');
    body.fail(failure);
    const reader = body.getReader();
    await expect(reader.read()).rejects.toBe(failure);
    await expect(reader.read()).rejects.toBe(failure);
  });

  it('cancel destroys the source once, ends the reading and drops the queue; after the end there is nothing to destroy', async () => {
    const source = recorder();
    const body = new HttpBody(source);
    body.push(bytes('a'));
    const iterator = body[Symbol.asyncIterator]();
    await iterator.return!();
    await body.cancel();
    expect(source.calls).toEqual(['cancel']);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });

    const finished = recorder();
    const done = new HttpBody(finished);
    done.end();
    await done.cancel();
    expect(finished.calls).toEqual([]);
  });

  it('one reader at a time: a second one is refused while the first holds it, and welcome once released', async () => {
    const body = HttpBody.fed();
    const reader = body.getReader();
    expect(body.locked).toBe(true);
    expect(() => body[Symbol.asyncIterator]()).toThrow(TypeError);
    reader.releaseLock();
    expect(body.locked).toBe(false);
    body.push(bytes('x'));
    body.end();
    expect(await readAll(body)).toBe('x');
  });

  it('tee gives both branches every byte; the source is destroyed only when both branches are cancelled', async () => {
    const source = recorder();
    const body = new HttpBody(source);
    const [left, right] = body.tee();
    body.push(bytes('one '));
    body.push(bytes('two'));
    body.end();
    expect(await readAll(left)).toBe('one two');
    expect(await readAll(right)).toBe('one two');

    const live = recorder();
    const open = new HttpBody(live);
    const [a, b] = open.tee();
    await a.cancel();
    expect(live.calls).toEqual([]);
    await b.cancel();
    await new Promise((resolve) => setImmediate(resolve));
    expect(live.calls).toEqual(['cancel']);
  });

  it('watchers hear each chunk as it arrives and the end once, whether it ends, fails or is cancelled', async () => {
    for (const finish of [(body: HttpBody) => body.end(), (body: HttpBody) => body.fail(new Error('x')), (body: HttpBody) => void body.cancel()]) {
      const body = HttpBody.fed();
      const heard: string[] = [];
      body.watch({ chunk: () => heard.push('chunk'), done: () => heard.push('done') });
      body.push(bytes('a'));
      body.push(bytes('b'));
      finish(body);
      finish(body);
      expect(heard).toEqual(['chunk', 'chunk', 'done']);
    }
    const ended = HttpBody.fed();
    ended.end();
    const late: string[] = [];
    ended.watch({ chunk: () => late.push('chunk'), done: () => late.push('done') });
    expect(late).toEqual(['done']);
  });

  it('toWeb gives the same bytes as a web ReadableStream, and cancelling it destroys the source', async () => {
    const body = HttpBody.fed();
    const web = body.toWeb();
    body.push(bytes('web '));
    body.push(bytes('bytes'));
    body.end();
    expect(web).toBeInstanceOf(ReadableStream);
    expect(await readAll(web)).toBe('web bytes');

    const source = recorder();
    const live = new HttpBody(source);
    await live.toWeb().cancel();
    expect(source.calls).toEqual(['cancel']);
  });

  it('4 MiB from a real server arrive whole and in order while the reader lags behind', async () => {
    const chunk = 64 * 1024;
    const server = http.createServer((_request, response) => {
      response.writeHead(200);
      let sent = 0;
      const write = (): void => {
        while (sent < 64) {
          const block = Buffer.alloc(chunk, sent % 251);
          sent++;
          if (!response.write(block)) return void response.once('drain', write);
        }
        response.end();
      };
      write();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createHttpClient();
    try {
      const response = await client.fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      const received: number[] = [];
      let total = 0;
      for await (const part of response.body as HttpBody) {
        for (const byte of part) {
          received.push(byte);
        }
        total += part.byteLength;
        // A slow reader: the body must hold the socket, not pile up what arrives.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(total).toBe(64 * chunk);
      for (let block = 0; block < 64; block++) expect(received[block * chunk]).toBe(block % 251);
    } finally {
      client.close();
    }
  });
});
