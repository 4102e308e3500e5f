import type Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '../log/logger.js';
import { ANTHROPIC_VERSION, type ChatMessage, type ContentBlock, type ModelClient, type ModelRequest, type ModelResponse } from '../contracts/model.js';
import { classifySdkError, ModelError, retryAfterMs } from './model-errors.js';
import { TEAMMATE_HEADER } from '../contracts/offline-model.js';
import { sdkLogger } from './sdk-logger.js';
import type { SdkClient } from './sdk-client.js';
import { StallWatchdog } from './stall-watchdog.js';
import { createHttpClient, type HttpFetch } from '../platform/http/http-fetch.js';

export { describeModelError, isPromptTooLong, ModelError } from './model-errors.js';

export interface AnthropicClientOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string | undefined;
  readonly teammate: string;
  readonly logger: Logger;
  /** The SDK's own retries for 429, 529, 5xx and connection errors (logged at warn). */
  readonly maxRetries?: number;
  /** No byte for this long ends the call as a transient failure. */
  readonly stallMs: number;
  /** NODE_EXTRA_CA_CERTS that Node did not load at start (http/extra-ca.ts). */
  readonly extraCaFile?: string | null;
}

type Sdk = typeof import('./sdk-client.js');

/** The longest retry-after the SDK may wait inside a call (older SDKs' own limit); past it, the teammate waits. */
const IN_CALL_WAIT_MAX_MS = 60_000;

/**
 * The real SDK (its client with the resources teamd calls, sdk-client.ts), used for both the
 * real API and the offline model (its baseURL), streaming, with a stall watchdog. It is loaded
 * by the first call, so neither start-up nor an idle teammate pays for it. The tools, the system
 * prompt and the end of the conversation are marked for prompt caching; errors come out as
 * ModelError.
 */
export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  let loaded: { sdk: Sdk; client: SdkClient } | null = null;
  // node:http instead of Node's fetch, whose undici would cost the teammate ~11 MiB (http/http-fetch.ts).
  const http = createHttpClient({ extraCaFile: options.extraCaFile ?? null, warn: (message) => options.logger.warn(message) });
  const load = async (): Promise<{ sdk: Sdk; client: SdkClient }> => {
    if (loaded) return loaded;
    const sdk = await import('./sdk-client.js');
    const client = new sdk.SdkClient({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 2,
      // Until the answer's headers; the watchdog covers the bytes after them.
      timeout: options.stallMs,
      defaultHeaders: { 'anthropic-version': ANTHROPIC_VERSION, [TEAMMATE_HEADER]: options.teammate },
      logger: sdkLogger(options.logger),
      logLevel: 'info',
    });
    loaded = { sdk, client };
    return loaded;
  };
  const retries = options.maxRetries ?? 2;
  const once = async (request: ModelRequest, signal: AbortSignal | undefined): Promise<ModelResponse> => {
    const { sdk, client } = await load();
    const controller = new AbortController();
    const cancel = () => controller.abort();
    signal?.addEventListener('abort', cancel, { once: true });
    const watchdog = new StallWatchdog(options.stallMs, cancel);
    let answerBegan = false;
    const fetch: HttpFetch = async (input, init) => {
      const response = await http.fetch(input, init);
      answerBegan = response.status >= 200 && response.status < 300;
      // The SDK waits out any retry-after inside the call, however long, while the teammate looks
      // busy with its task. A long one is the teammate's to wait instead: its task goes back to the
      // board and status shows the next try (nextBackoff honours the header).
      const asked = response.status === 429 || response.status >= 500 ? retryAfterMs(response.headers, Date.now()) : undefined;
      if (asked !== undefined && asked > IN_CALL_WAIT_MAX_MS) response.headers.set('x-should-retry', 'false');
      return response;
    };
    const tools = request.tools.map((tool, index) => (index === request.tools.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' as const } } : tool));
    try {
      if (signal?.aborted) throw new ModelError('aborted', 'the model call was cancelled');
      const stream = client.withOptions({ fetch: watchdog.wrap(fetch) as unknown as typeof globalThis.fetch }).messages.stream(
        {
          model: options.model,
          max_tokens: request.maxTokens,
          system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
          tools,
          messages: withMovingBreakpoint(request.messages),
        },
        { signal: controller.signal },
      );
      return toResponse(await stream.finalMessage());
    } catch (error) {
      if (error instanceof ModelError) throw error;
      if (watchdog.stalled && !signal?.aborted)
        throw new ModelError('stalled', `the model API sent nothing for ${options.stallMs} ms; the call was abandoned`, { cause: error });
      throw classifySdkError(sdk.SdkClient, error, options.model, { answerBegan });
    } finally {
      watchdog.disarm();
      signal?.removeEventListener('abort', cancel);
    }
  };
  return {
    async create(request, signal) {
      // An error event inside an answer, or an answer cut off, comes after HTTP 200, so the SDK
      // never retries it: it is retried here as the SDK retries a 529, what had come thrown away.
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(request, signal);
        } catch (error) {
          if (!(error instanceof ModelError) || !error.midAnswer || attempt >= retries || signal?.aborted) throw error;
          const waitMs = retryDelayMs(attempt);
          options.logger.warn({ attempt: attempt + 1, of: retries, waitMs, reason: error.message }, 'model call failed mid-answer; retrying');
          await pause(waitMs, signal);
        }
      }
    },
  };
}

/** The SDK's own schedule: 0.5 s doubling per retry, up to 8 s, less up to a quarter at random. */
function retryDelayMs(attempt: number): number {
  return Math.round(Math.min(8_000, 500 * 2 ** attempt) * (1 - Math.random() * 0.25));
}

/** Waits, or stops waiting at once when the call is cancelled (the next attempt then says so). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The conversation with a cache breakpoint on its last block, so each call reads the previous
 * call's prompt from the cache and writes only what is new: with the system prompt's and the
 * tools' breakpoints, three of the API's four. The session's own messages are not changed.
 */
export function withMovingBreakpoint(messages: readonly ChatMessage[]): Anthropic.MessageParam[] {
  return messages.map((message, index) => {
    if (index !== messages.length - 1 || message.content.length === 0) return message;
    const content = message.content.map((block, i) => (i === message.content.length - 1 ? { ...block, cache_control: { type: 'ephemeral' as const } } : block));
    return { role: message.role, content };
  });
}

function toResponse(message: Anthropic.Message): ModelResponse {
  return {
    content: message.content.flatMap((block): ContentBlock[] => {
      if (block.type === 'text') return [{ type: 'text', text: block.text }];
      if (block.type === 'tool_use') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
      return [];
    }),
    stopReason: message.stop_reason ?? 'end_turn',
    usage: {
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
      cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
    },
  };
}
