import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createAnthropicClient, ModelError } from '../../src/model/model-client.js';
import { type ModelRequest } from '../../src/contracts/model.js';
import { failureClass } from '../../src/model/model-errors.js';
import { OfflineModelServer } from '../../src/model/offline/server.js';
import { OfflineScript } from '../../src/model/offline/script.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const servers: OfflineModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The real SDK, through createAnthropicClient, against the offline endpoint scripted for alice. */
async function client(steps: unknown[]) {
  const dir = makeTempDir();
  const file = path.join(dir, 'offline-script.json');
  fs.writeFileSync(file, JSON.stringify({ alice: steps }));
  let requests = 0;
  const server = await OfflineModelServer.listen({ script: new OfflineScript(file), logger: createLogger(), key: 'test-key', onRequest: () => requests++ });
  servers.push(server);
  const logFile = path.join(dir, 'alice.log');
  const model = createAnthropicClient({
    model: 'offline',
    apiKey: 'test-key',
    baseURL: server.url,
    teammate: 'alice',
    logger: createLogger({ destination: logFile }),
    stallMs: 10_000,
  });
  const warnings = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  return { model, warnings, requests: () => requests };
}

const request: ModelRequest = { system: 'You help.', messages: [{ role: 'user', content: [{ type: 'text', text: 'say hi' }] }], tools: [], maxTokens: 100 };

describe('createAnthropicClient and error events inside an answer', () => {
  it('two error events are retried in the call; the answer that then comes whole is returned, without the text begun before them', async () => {
    const { model } = await client([
      { streamError: 'api_error', text: 'BEGUN', times: 2 },
      { stopReason: 'end_turn', text: 'hello' },
    ]);
    const response = await model.create(request);
    expect(response.content).toEqual([{ type: 'text', text: 'hello' }]);
  });

  it('a third one is the call failing: a transient ModelError that says it came mid-answer', async () => {
    const { model } = await client([
      { streamError: 'overloaded_error', times: 3 },
      { stopReason: 'end_turn', text: 'too late' },
    ]);
    const error = (await model.create(request).catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect({ kind: error.kind, midAnswer: error.midAnswer }).toEqual({ kind: 'overloaded', midAnswer: true });
    expect(error.message).toMatch(/^the model API was overloaded mid-answer/);
  });

  it('a call cancelled while it waits to retry ends as cancelled, and makes no further request', async () => {
    const { model, warnings, requests } = await client([{ streamError: 'overloaded_error' }, { stopReason: 'end_turn', text: 'never asked for' }]);
    const controller = new AbortController();
    const waiting = model.create(request, controller.signal);
    await waitFor(() => warnings().includes('model call failed mid-answer; retrying'), 'the first attempt to fail and the retry to wait');
    controller.abort();
    const error = (await waiting.catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.kind).toBe('aborted');
    expect(requests()).toBe(1);
  });
});

describe('createAnthropicClient and an answer cut off', () => {
  it.each(['reset', 'end'] as const)(
    'the connection %s mid-answer is retried in the call, then the answer is returned whole; three in a row are a transient connection failure',
    async (how) => {
      const { model, warnings } = await client([
        { cutMidAnswer: how, text: 'BEGUN' },
        { stopReason: 'end_turn', text: 'hello' },
        { cutMidAnswer: how, times: 3 },
        { stopReason: 'end_turn', text: 'too late' },
      ]);
      expect((await model.create(request)).content).toEqual([{ type: 'text', text: 'hello' }]);
      expect(warnings()).toContain("the model API's answer was cut off");
      const error = (await model.create(request).catch((e: unknown) => e)) as ModelError;
      expect({ kind: error.kind, midAnswer: error.midAnswer }).toEqual({ kind: 'connection', midAnswer: true });
      expect(failureClass(error)).toBe('transient');
    },
  );
});
