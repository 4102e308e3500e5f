import Anthropic from '@anthropic-ai/sdk';
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
export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries ?? 4,
    timeout: 10 * 60 * 1000,
    defaultHeaders: { [TEAMMATE_HEADER]: options.teammate },
    logger: options.logger,
  });
  return {
    async create(request, signal) {
      const tools = request.tools.map((tool, index) =>
        index === request.tools.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' as const } } : tool,
      );
      const response = await client.messages.create(
        {
          model: options.model,
          max_tokens: request.maxTokens,
          system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
          tools: tools as Anthropic.Tool[],
          messages: request.messages as Anthropic.MessageParam[],
        },
        signal ? { signal } : undefined,
      );
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

/** Whether the API refused the request for being over the context window (a 400 with that meaning). */
export function isPromptTooLong(error: unknown): boolean {
  return error instanceof Anthropic.BadRequestError && /prompt is too long/i.test(error.message);
}

export function describeModelError(error: unknown): string {
  if (error instanceof Anthropic.RateLimitError) return `rate limited by the model API after retries (${error.message})`;
  if (error instanceof Anthropic.InternalServerError) return `the model API failed after retries (status ${error.status}: ${error.message})`;
  if (error instanceof Anthropic.AuthenticationError) return `the API key was refused (${error.message}); check ANTHROPIC_API_KEY`;
  if (error instanceof Anthropic.APIConnectionError) return `cannot reach the model API (${error.message})`;
  if (error instanceof Anthropic.APIError) return `model API error ${error.status ?? ''}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
