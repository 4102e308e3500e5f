import { notDraft2020 } from '../../mcp/schema-2020.js';
import type { ModelInfo } from '../model-catalog.js';

/** A request the API refuses: its status, error type and message, as the API words them. */
export interface Violation {
  readonly status: 400 | 404 | 413;
  readonly type: 'invalid_request_error' | 'not_found_error' | 'request_too_large';
  readonly message: string;
}

type RawBlock = { type: string; [key: string]: unknown };
export interface RawRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly system?: string | readonly RawBlock[] | undefined;
  readonly tools?: readonly Record<string, unknown>[] | undefined;
  readonly messages: readonly { role: 'user' | 'assistant'; content: string | readonly RawBlock[] }[];
}

export interface RuleOptions {
  readonly model: ModelInfo | null;
  /** The context window the endpoint enforces (configurable to provoke "prompt is too long"). */
  readonly contextWindowTokens: number;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const MAX_BREAKPOINTS = 4;

const bad = (message: string): Violation => ({ status: 400, type: 'invalid_request_error', message });

/**
 * The checks the Messages API makes before it answers, with its wording, so the offline model
 * refuses what the real one refuses: the first violation found, or null.
 */
export function findViolation(request: RawRequest, options: RuleOptions): Violation | null {
  if (!options.model) return { status: 404, type: 'not_found_error', message: `model: ${request.model}` };
  if (request.max_tokens < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if (request.max_tokens > options.model.maxOutputTokens)
    return bad(
      `max_tokens: ${request.max_tokens} > ${options.model.maxOutputTokens}, which is the maximum allowed number of output tokens for ${request.model}`,
    );
  return (
    checkTools(request.tools ?? []) ??
    checkMessages(request) ??
    checkBreakpoints(request) ??
    checkContextWindow(request, Math.min(options.contextWindowTokens, options.model.contextWindowTokens))
  );
}

function checkTools(tools: readonly Record<string, unknown>[]): Violation | null {
  const seen = new Set<string>();
  for (const [k, tool] of tools.entries()) {
    const name = typeof tool.name === 'string' ? tool.name : '';
    if (!TOOL_NAME.test(name)) return bad(`tools.${k}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    const schema = tool.input_schema as { type?: unknown } | undefined;
    if (!schema || typeof schema !== 'object') return bad(`tools.${k}.custom.input_schema: Field required`);
    if (schema.type !== 'object') return bad(`tools.${k}.custom.input_schema.type: Input should be 'object'`);
    // As the API: a schema is read as draft 2020-12, and one written for draft-07 is refused.
    const older = notDraft2020(schema);
    if (older) return bad(`tools.${k}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (${older})`);
    if (seen.has(name)) return bad('tools: Tool names must be unique.');
    seen.add(name);
  }
  return null;
}

function blocksOf(content: string | readonly RawBlock[]): readonly RawBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function checkMessages(request: RawRequest): Violation | null {
  const { messages } = request;
  if (messages.length === 0) return bad('messages: at least one message is required');
  if (messages[0]!.role !== 'user') return bad('messages: first message must use the "user" role');
  let toolBlocks = false;
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message.content);
    const last = i === messages.length - 1;
    if (blocks.length === 0 && !(last && message.role === 'assistant'))
      return bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    for (const [j, block] of blocks.entries()) {
      if (block.type === 'tool_use' || block.type === 'tool_result') toolBlocks = true;
      if (block.type !== 'text') continue;
      const text = typeof block.text === 'string' ? block.text : '';
      if (text.length === 0) return bad(`messages.${i}.content.${j}.text: text content blocks must be non-empty`);
      if (text.trim().length === 0) return bad('messages: text content blocks must contain non-whitespace text');
    }
    const pairing = checkPairing(messages, i);
    if (pairing) return pairing;
    if (last && message.role === 'assistant') {
      const final = blocks.at(-1);
      if (final?.type === 'text' && typeof final.text === 'string' && final.text !== final.text.trimEnd())
        return bad('messages: final assistant content cannot end with trailing whitespace');
    }
  }
  if (toolBlocks && (request.tools ?? []).length === 0) return bad('Requests which include `tool_use` or `tool_result` blocks must define tools.');
  return null;
}

/** Every tool_use is answered at the start of the next message; every tool_result answers the message before. */
function checkPairing(messages: RawRequest['messages'], i: number): Violation | null {
  const blocks = blocksOf(messages[i]!.content);
  if (messages[i]!.role === 'assistant') {
    const ids = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
    if (ids.length === 0) return null;
    const next = messages[i + 1];
    const leading: string[] = [];
    for (const block of next ? blocksOf(next.content) : []) {
      if (block.type !== 'tool_result') break;
      leading.push(String(block.tool_use_id));
    }
    const missing = ids.filter((id) => !leading.includes(id));
    if (next?.role !== 'user' || missing.length > 0)
      return bad(
        `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${(missing.length ? missing : ids).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    return null;
  }
  const previous = i > 0 ? blocksOf(messages[i - 1]!.content) : [];
  const asked = new Set(messages[i - 1]?.role === 'assistant' ? previous.filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : []);
  for (const [j, block] of blocks.entries()) {
    if (block.type === 'tool_result' && !asked.has(String(block.tool_use_id)))
      return bad(
        `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
  }
  return null;
}

function checkBreakpoints(request: RawRequest): Violation | null {
  const marked = (blocks: readonly Record<string, unknown>[]) => blocks.filter((b) => b.cache_control !== undefined && b.cache_control !== null).length;
  const system = typeof request.system === 'string' || request.system === undefined ? 0 : marked(request.system);
  const count = system + marked(request.tools ?? []) + request.messages.reduce((sum, m) => sum + marked(blocksOf(m.content)), 0);
  return count > MAX_BREAKPOINTS ? bad(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${count}.`) : null;
}

function checkContextWindow(request: RawRequest, window: number): Violation | null {
  const tokens = promptTokens(request);
  return tokens > window ? bad(`prompt is too long: ${tokens} tokens > ${window} maximum`) : null;
}

/** The offline model's token count: about four characters a token, over everything the prompt holds. */
export function promptTokens(request: Pick<RawRequest, 'system' | 'tools' | 'messages'>): number {
  return (
    estimateTokens(JSON.stringify(request.system ?? '')) +
    estimateTokens(JSON.stringify(request.tools ?? [])) +
    estimateTokens(JSON.stringify(request.messages))
  );
}

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Text placed after tool results in the same user turn makes real models answer with an empty
 * turn (the API's guidance on empty responses); the offline model does the same.
 */
export function textAfterToolResults(request: RawRequest): boolean {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return false;
  const blocks = blocksOf(last.content);
  const firstText = blocks.findIndex((b) => b.type === 'text');
  return (
    firstText !== -1 &&
    blocks.slice(firstText).some((b) => b.type === 'tool_result') === false &&
    blocks.slice(0, firstText).some((b) => b.type === 'tool_result')
  );
}
