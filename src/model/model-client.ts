import type Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '../logger.js';
import type { ApiTool } from '../tools/registry.js';
import { TEAMMATE_HEADER } from './offline/server.js';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ModelRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ApiTool[];
  readonly maxTokens: number;
}

export interface ModelResponse {
  readonly content: ContentBlock[];
  readonly stopReason: string;
  readonly usage: Usage;
}

/** The narrow interface the agent loop calls; tests inject a strict scripted fake. */
export interface ModelClient {
  create(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
}

export interface AnthropicClientOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL?: string | undefined;
  readonly teammate: string;
  readonly logger: Logger;
  /** The SDK's own retries for 429, 529 and connection errors. */
  readonly maxRetries?: number;
}

/**
 * The real SDK, used for both the real API and the offline model (its baseURL). The stable
 * prefix — system prompt and tools — is marked for prompt caching.
 */
export type ModelErrorKind = 'prompt_too_long' | 'rate_limited' | 'server' | 'auth' | 'connection' | 'other';

/** A failed model call, classified by the SDK's error classes where the SDK is loaded. */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

type Sdk = typeof import('@anthropic-ai/sdk');

function classify(sdk: Sdk, error: unknown): ModelError {
  const A = sdk.default;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof A.BadRequestError && /prompt is too long/i.test(error.message)) return new ModelError('prompt_too_long', message, { cause: error });
  if (error instanceof A.RateLimitError) return new ModelError('rate_limited', `rate limited by the model API after retries (${message})`, { cause: error });
  if (error instanceof A.InternalServerError)
    return new ModelError('server', `the model API failed after retries (status ${error.status}: ${message})`, { cause: error });
  if (error instanceof A.AuthenticationError) return new ModelError('auth', `the API key was refused (${message}); check ANTHROPIC_API_KEY`, { cause: error });
  if (error instanceof A.APIConnectionError) return new ModelError('connection', `cannot reach the model API (${message})`, { cause: error });
  if (error instanceof A.APIError) return new ModelError('other', `model API error ${error.status ?? ''}: ${message}`, { cause: error });
  return new ModelError('other', message, { cause: error });
}

/**
 * The real SDK, used for both the real API and the offline model (its baseURL). It is loaded on
 * the first call, so a teammate is ready before it needs a model. The stable prefix — system
 * prompt and tools — is marked for prompt caching; errors come out as ModelError.
 */
export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  let loaded: { sdk: Sdk; client: Anthropic } | null = null;
  const load = async (): Promise<{ sdk: Sdk; client: Anthropic }> => {
    if (loaded) return loaded;
    const sdk = await import('@anthropic-ai/sdk');
    const client = new sdk.default({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 4,
      timeout: 10 * 60 * 1000,
      defaultHeaders: { [TEAMMATE_HEADER]: options.teammate },
      logger: options.logger,
    });
    loaded = { sdk, client };
    return loaded;
  };
  return {
    async create(request, signal) {
      const { sdk, client } = await load();
      const tools = request.tools.map((tool, index) =>
        index === request.tools.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' as const } } : tool,
      );
      let response: Anthropic.Message;
      try {
        response = await client.messages.create(
          {
            model: options.model,
            max_tokens: request.maxTokens,
            system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
            tools,
            messages: request.messages as Anthropic.MessageParam[],
          },
          signal ? { signal } : undefined,
        );
      } catch (error) {
        throw classify(sdk, error);
      }
      return {
        content: response.content.flatMap((block): ContentBlock[] => {
          if (block.type === 'text') return [{ type: 'text', text: block.text }];
          if (block.type === 'tool_use') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
          return [];
        }),
        stopReason: response.stop_reason ?? 'end_turn',
        usage: {
          inputTokens: response.usage.input_tokens,
          outputTokens: response.usage.output_tokens,
          cacheReadTokens: response.usage.cache_read_input_tokens ?? 0,
          cacheWriteTokens: response.usage.cache_creation_input_tokens ?? 0,
        },
      };
    },
  };
}

/** Whether the API refused the request for being over the context window. */
export function isPromptTooLong(error: unknown): boolean {
  return error instanceof ModelError && error.kind === 'prompt_too_long';
}

export function describeModelError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
