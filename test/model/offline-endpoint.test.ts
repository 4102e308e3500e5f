import Anthropic from '@anthropic-ai/sdk';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { OfflineModelServer } from '../../src/model/offline/server.js';
import { OfflineScript } from '../../src/model/offline/script.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const servers: OfflineModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function endpoint(script: unknown = {}, contextWindowTokens = 200_000) {
  const file = path.join(makeTempDir(), 'offline-script.json');
  fs.writeFileSync(file, JSON.stringify(script));
  const server = await OfflineModelServer.listen({
    script: new OfflineScript(file),
    logger: createLogger(),
    key: 'test-key',
    contextWindowTokens: () => contextWindowTokens,
  });
  servers.push(server);
  const post = async (body: Record<string, unknown>, teammate = 'alice', version = '2023-06-01') => {
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test-key', 'anthropic-version': version, 'x-teamd-teammate': teammate },
      body: JSON.stringify({ model: 'offline', max_tokens: 1024, ...body }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { type: string; error?: { type: string; message: string }; content?: unknown[]; stop_reason?: string },
    };
  };
  const sdk = new Anthropic({
    apiKey: 'test-key',
    baseURL: server.url,
    maxRetries: 0,
    defaultHeaders: { 'anthropic-version': '2023-06-01', 'x-teamd-teammate': 'alice' },
  });
  return { server, post, sdk };
}

const tool = { name: 'bash', description: 'run', input_schema: { type: 'object', properties: { command: { type: 'string' } } } };
const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const use = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: { command: 'ls' } }] });
const result = (id: string, ...extra: unknown[]) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }, ...extra] });

describe('the offline endpoint refuses what the Messages API refuses, in its error shape', () => {
  it.each([
    [
      'a tool_use without its tool_result',
      { tools: [tool], messages: [user('hi'), use('t1'), user('next')] },
      /tool_use` ids were found without `tool_result` blocks immediately after: t1/,
    ],
    [
      'a tool_result after text in its turn',
      {
        tools: [tool],
        messages: [
          user('hi'),
          use('t1'),
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'tool_result', tool_use_id: 't1', content: 'ok' },
            ],
          },
        ],
      },
      /without `tool_result` blocks immediately after/,
    ],
    [
      'a tool_result answering nothing',
      { tools: [tool], messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'zz', content: 'ok' }] }] },
      /unexpected `tool_use_id` found in `tool_result` blocks: zz/,
    ],
    ['tool blocks without tools', { messages: [user('hi'), use('t1'), result('t1')] }, /must define tools/],
    ['an empty text block', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, /text content blocks must be non-empty/],
    [
      'a whitespace-only text block',
      { messages: [user('hi'), { role: 'assistant', content: [{ type: 'text', text: '  \n' }] }, user('again')] },
      /must contain non-whitespace text/,
    ],
    [
      'five cache breakpoints',
      { messages: [{ role: 'user', content: Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `b${i}`, cache_control: { type: 'ephemeral' } })) }] },
      /maximum of 4 blocks with cache_control/,
    ],
    ['a bad tool name', { tools: [{ ...tool, name: 'run bash!' }], messages: [user('hi')] }, /tools\.0\.custom\.name/],
    [
      'a tool schema that is not an object',
      { tools: [{ ...tool, input_schema: { type: 'string' } }], messages: [user('hi')] },
      /input_schema\.type: Input should be 'object'/,
    ],
    ['max_tokens over the model limit', { max_tokens: 10_000_000, messages: [user('hi')] }, /max_tokens: 10000000 > 64000/],
    [
      'a first message from the assistant',
      { messages: [{ role: 'assistant', content: [{ type: 'text', text: 'hi' }] }] },
      /first message must use the "user" role/,
    ],
    [
      'a final assistant turn ending in whitespace',
      { messages: [user('hi'), { role: 'assistant', content: [{ type: 'text', text: 'so ' }] }] },
      /cannot end with trailing whitespace/,
    ],
  ])('%s: 400 invalid_request_error', async (_name, body, message) => {
    const { post } = await endpoint();
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('error');
    expect(response.body.error?.type).toBe('invalid_request_error');
    expect(response.body.error?.message).toMatch(message);
  });

  it('a prompt over the configured context window is refused as too long', async () => {
    const { post } = await endpoint({}, 1_000);
    const response = await post({ messages: [user('x'.repeat(8_000))] });
    expect(response.status).toBe(400);
    expect(response.body.error?.message).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
  });

  it('an unknown model is 404 on messages and on GET /v1/models/{id}; a known one is described', async () => {
    const { post, sdk } = await endpoint();
    const response = await post({ model: 'claude-nonexistent-9', messages: [user('hi')] });
    expect(response.status).toBe(404);
    expect(response.body.error).toEqual({ type: 'not_found_error', message: 'model: claude-nonexistent-9' });
    await expect(sdk.models.retrieve('claude-nonexistent-9')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    expect((await sdk.models.retrieve('claude-sonnet-5-5')).id).toBe('claude-sonnet-5-5');
  });

  it('an anthropic-version the API does not document (the SDK default of a later release) is 400; teamd sends 2023-06-01 (issue 47)', async () => {
    const { post } = await endpoint();
    const refused = await post({ messages: [{ role: 'user', content: 'hi' }] }, 'alice', '2026-10-21');
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toMatch(/anthropic-version: "2026-10-21" is not a version of the API \(use 2023-06-01\)/);
    expect((await post({ messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  });

  it('a wrong key is 401', async () => {
    const { server } = await endpoint();
    const sdk = new Anthropic({ apiKey: 'wrong', baseURL: server.url, maxRetries: 0 });
    await expect(sdk.models.retrieve('offline')).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('text after tool results in one user turn gets the empty answer real models give', async () => {
    const { post } = await endpoint();
    const response = await post({ tools: [tool], messages: [user('hi'), use('t1'), result('t1', { type: 'text', text: 'and also' })] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ content: [], stop_reason: 'end_turn' });
  });
});

describe('the offline endpoint streams, and misbehaves when scripted', () => {
  it('streams a scripted pause_turn, refusal and tool call through the SDK', async () => {
    const { sdk } = await endpoint({
      alice: [
        { stopReason: 'pause_turn', text: 'thinking' },
        { stopReason: 'refusal', text: 'I will not' },
        { toolUse: { name: 'bash', input: { command: 'ls' } } },
      ],
    });
    const ask = () =>
      sdk.messages.stream({ model: 'offline', max_tokens: 100, tools: [tool as Anthropic.Tool], messages: [{ role: 'user', content: 'go' }] }).finalMessage();
    expect(await ask()).toMatchObject({ stop_reason: 'pause_turn', content: [{ type: 'text', text: 'thinking' }] });
    expect(await ask()).toMatchObject({ stop_reason: 'refusal', content: [{ type: 'text', text: 'I will not' }] });
    expect(await ask()).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'bash', input: { command: 'ls' } }] });
  });

  it('a tool call cut off by max_tokens arrives with its input JSON incomplete', async () => {
    const { sdk } = await endpoint({
      alice: [{ stopReason: 'max_tokens', truncatedToolUse: { name: 'bash', input: { command: 'touch a-rather-long-file-name' } } }],
    });
    const message = await sdk.messages
      .stream({ model: 'offline', max_tokens: 100, tools: [tool as Anthropic.Tool], messages: [{ role: 'user', content: 'go' }] })
      .finalMessage();
    expect(message.stop_reason).toBe('max_tokens');
    const block = message.content[0] as Anthropic.ToolUseBlock;
    expect(block.type).toBe('tool_use');
    expect(JSON.stringify(block.input)).not.toContain('a-rather-long-file-name');
  });

  it.each([
    [{ status: 401 }, Anthropic.AuthenticationError],
    [{ status: 403 }, Anthropic.PermissionDeniedError],
    [{ status: 404 }, Anthropic.NotFoundError],
    [{ status: 429 }, Anthropic.RateLimitError],
    [{ status: 529 }, Anthropic.InternalServerError],
    [{ status: 500 }, Anthropic.InternalServerError],
    [{ status: 400, promptTooLong: true }, Anthropic.BadRequestError],
    [{ drop: true }, Anthropic.APIConnectionError],
  ])('scripted %j reaches the SDK as %o', async (step, errorClass) => {
    const { sdk } = await endpoint({ alice: [step] });
    await expect(sdk.messages.create({ model: 'offline', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] })).rejects.toBeInstanceOf(errorClass);
  });

  it('429 carries retry-after; a step with times repeats; forMs lasts for its time', async () => {
    const { server } = await endpoint({ alice: [{ status: 429, retryAfterSeconds: 7, times: 2 }] });
    const call = () =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01', 'x-teamd-teammate': 'alice' },
        body: JSON.stringify({ model: 'offline', max_tokens: 10, messages: [user('hi')] }),
      });
    const first = await call();
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    expect((await call()).status).toBe(429);
    expect((await call()).status).toBe(200);
  });

  it('an error event mid-answer: the stream starts, with its text, then the SDK throws the API error of that type, with no status', async () => {
    const { sdk } = await endpoint({ alice: [{ streamError: 'overloaded_error', text: 'begun' }] });
    const stream = sdk.messages.stream({ model: 'offline', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const error = (await stream.finalMessage().catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect({ status: error.status, type: error.type }).toEqual({ status: undefined, type: 'overloaded_error' });
    expect(texts).toEqual(['begun']);
  });

  it('a stalled stream sends its start and then nothing, until the client gives up', async () => {
    const { sdk } = await endpoint({ alice: [{ stall: true }] });
    const controller = new AbortController();
    const stream = sdk.messages.stream({ model: 'offline', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] }, { signal: controller.signal });
    await new Promise<void>((resolve) => stream.on('streamEvent', (event) => event.type === 'message_start' && resolve()));
    controller.abort();
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
  });
});
