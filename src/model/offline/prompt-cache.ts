import { createHash } from 'node:crypto';
import { estimateTokens, type RawRequest } from './request-rules.js';

/** What one request is billed, as the API reports it in `usage`. */
export interface CacheBill {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
}

export interface PromptCacheOptions {
  /** The shortest prefix the API caches (1024 tokens for most models). */
  readonly minCacheableTokens: number;
  /** How far before a breakpoint the API looks for an earlier cache entry (about 20 blocks). */
  readonly lookbackBlocks?: number;
  /** How long an entry lives after its last use (5 minutes for ephemeral). */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

interface Block {
  readonly tokens: number;
  readonly breakpoint: boolean;
  /** The hash of the prompt up to and including this block. */
  readonly prefix: string;
}

const MAX_ENTRIES = 100_000;

/**
 * Bills prompt caching the way the API documents it: the prompt is read in the order tools →
 * system → messages; a `cache_control` block marks a prefix to cache (written if at least the
 * minimum length); a request reads the longest cached prefix ending at a breakpoint or at one of
 * the blocks up to the lookback window before it; what follows the last breakpoint is plain input.
 */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly options: PromptCacheOptions) {}

  bill(request: Pick<RawRequest, 'model' | 'system' | 'tools' | 'messages'>): CacheBill {
    const now = this.options.now?.() ?? Date.now();
    const blocks = flatten(request);
    const total = blocks.reduce((sum, b) => sum + b.tokens, 0);
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    if (breakpoints.length === 0) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const lookback = this.options.lookbackBlocks ?? 20;
    const ttl = this.options.ttlMs ?? 5 * 60_000;
    const upTo = prefixTokens(blocks);
    // The longest hit: at a breakpoint, or at a block within the lookback window before one.
    let read = -1;
    for (const at of breakpoints) {
      for (let i = at; i >= Math.max(0, at - lookback); i--) {
        const expires = this.entries.get(blocks[i]!.prefix);
        if (expires !== undefined && expires > now) {
          read = Math.max(read, i);
          break;
        }
      }
    }
    const last = breakpoints.at(-1)!;
    const readTokens = read >= 0 ? upTo[read]! : 0;
    const cachedTokens = upTo[last]!;
    const writes = cachedTokens >= this.options.minCacheableTokens && last > read;
    for (const at of breakpoints) if (upTo[at]! >= this.options.minCacheableTokens) this.remember(blocks[at]!.prefix, now + ttl);
    if (read >= 0) this.remember(blocks[read]!.prefix, now + ttl);
    const writeTokens = writes ? cachedTokens - readTokens : 0;
    return { input_tokens: total - readTokens - writeTokens, cache_creation_input_tokens: writeTokens, cache_read_input_tokens: readTokens };
  }

  private remember(prefix: string, expires: number): void {
    this.entries.delete(prefix);
    this.entries.set(prefix, expires);
    // The oldest go first when the map is full: bounded memory whatever the traffic.
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** The prompt as the cache sees it: each tool, each system block, each message block, in order. */
function flatten(request: Pick<RawRequest, 'model' | 'system' | 'tools' | 'messages'>): Block[] {
  const parts: { value: unknown; breakpoint: boolean }[] = [];
  const marked = (b: unknown) => typeof b === 'object' && b !== null && (b as { cache_control?: unknown }).cache_control != null;
  for (const tool of request.tools ?? []) parts.push({ value: { ...tool, cache_control: undefined }, breakpoint: marked(tool) });
  const system = typeof request.system === 'string' ? [{ type: 'text', text: request.system }] : (request.system ?? []);
  for (const block of system) parts.push({ value: { ...block, cache_control: undefined }, breakpoint: marked(block) });
  for (const message of request.messages) {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const [i, block] of content.entries())
      parts.push({ value: { role: i === 0 ? message.role : undefined, ...block, cache_control: undefined }, breakpoint: marked(block) });
  }
  const hash = createHash('sha256').update(request.model);
  return parts.map((part) => {
    const text = JSON.stringify(part.value);
    hash.update(text);
    return { tokens: estimateTokens(text), breakpoint: part.breakpoint, prefix: hash.copy().digest('hex') };
  });
}

function prefixTokens(blocks: readonly Block[]): number[] {
  const sums: number[] = [];
  let sum = 0;
  for (const block of blocks) sums.push((sum += block.tokens));
  return sums;
}

/**
 * Where `later` rewrites what `earlier` cached: the index of the first block up to `earlier`'s
 * last breakpoint that `later` does not repeat, or null when `later` extends that prefix (it can
 * read all of it from the cache). Blocks compare without their cache_control.
 */
export function firstRewrite(
  earlier: Pick<RawRequest, 'model' | 'system' | 'tools' | 'messages'>,
  later: Pick<RawRequest, 'model' | 'system' | 'tools' | 'messages'>,
): number | null {
  const before = flatten(earlier);
  const after = flatten(later);
  const last = before.findLastIndex((b) => b.breakpoint);
  if (last === -1) return null;
  return after[last]?.prefix === before[last]!.prefix ? null : before.findIndex((b, i) => after[i]?.prefix !== b.prefix);
}

/**
 * The same request with a breakpoint on the last block of every message (more than the API's
 * four): what the best possible caching of this conversation would be billed, for comparison.
 */
export function withEveryBreakpoint<R extends Pick<RawRequest, 'messages'>>(request: R): R {
  const messages = request.messages.map((message) => {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return { ...message, content: content.map((block, i) => (i === content.length - 1 ? { ...block, cache_control: { type: 'ephemeral' } } : block)) };
  });
  return { ...request, messages };
}
