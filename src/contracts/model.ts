/**
 * The Messages API version teamd speaks, sent as `anthropic-version` on every call: the one the
 * API documents, set here and nowhere else (the SDK's own default is a date the API does not document).
 */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The model as the agent loop sees it: the Messages API's shapes, narrowed to what teamd sends and reads. */
export interface ApiTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

export type TextBlock = { type: 'text'; text: string };
export type ContentBlock =
  | TextBlock
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  /** A tool's output; messages that arrive mid-task ride along as further text blocks (never as text after the results). */
  | { type: 'tool_result'; tool_use_id: string; content: string | TextBlock[]; is_error?: boolean };

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

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'pause_turn' | 'refusal' | 'stop_sequence' | 'model_context_window_exceeded';

export interface ModelResponse {
  readonly content: ContentBlock[];
  readonly stopReason: StopReason;
  readonly usage: Usage;
}

/** The narrow interface the agent loop calls; tests inject a strict scripted fake. */
export interface ModelClient {
  create(request: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
}
