/** The parts of a Messages API request the offline model looks at. */
export interface OfflineRequest {
  readonly teammate: string;
  readonly system: string;
  /** The names of the tools the request offers. */
  readonly tools: readonly string[];
  readonly messages: readonly { role: 'user' | 'assistant'; content: string | readonly Block[] }[];
}

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string | readonly { type: string; text?: string }[]; is_error?: boolean }
  | { type: string; [key: string]: unknown };

export type OfflineBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface OfflineTurn {
  readonly content: OfflineBlock[];
  readonly stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'pause_turn' | 'refusal';
}
