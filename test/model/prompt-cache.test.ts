import { describe, expect, it } from 'vitest';
import { PromptCache } from '../../src/model/offline/prompt-cache.js';

const big = (n: number) => 'w'.repeat(n * 4 - 20);
const cc = { cache_control: { type: 'ephemeral' } };
const tools = [{ name: 'bash', description: big(600), input_schema: { type: 'object' }, ...cc }];
const system = [{ type: 'text', text: big(600), ...cc }];
const user = (text: string, marked = false) => ({ role: 'user' as const, content: [{ type: 'text', text, ...(marked ? cc : {}) }] });
const assistant = (text: string) => ({ role: 'assistant' as const, content: [{ type: 'text', text }] });

function cache(now = { t: 0 }) {
  return { cache: new PromptCache({ minCacheableTokens: 1024, now: () => now.t }), now };
}

describe('the offline model bills prompt caching as the API documents it', () => {
  it('writes the prefix up to a breakpoint on the first call, then reads it; what follows is plain input', () => {
    const { cache: c } = cache();
    const first = c.bill({ model: 'offline', tools, system, messages: [user('hello')] });
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(1024);
    const second = c.bill({ model: 'offline', tools, system, messages: [user('another question')] });
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBeGreaterThan(0);
  });

  it('a moving breakpoint at the end of the conversation makes the next call read all of it but the new turn', () => {
    const { cache: c } = cache();
    const turn1 = [user('a'.repeat(4000), true)];
    c.bill({ model: 'offline', tools, system, messages: turn1 });
    const turn2 = [user('a'.repeat(4000)), assistant('b'.repeat(400)), user('c'.repeat(400), true)];
    const bill = c.bill({ model: 'offline', tools, system, messages: turn2 });
    const whole = bill.input_tokens + bill.cache_read_input_tokens + bill.cache_creation_input_tokens;
    expect(bill.cache_read_input_tokens / whole).toBeGreaterThan(0.8);
    expect(bill.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('a prefix under the minimum is never cached; a changed prefix misses; an entry expires after 5 minutes', () => {
    const { cache: c, now } = cache();
    const small = { model: 'offline', system: [{ type: 'text', text: 'short', ...cc }], messages: [user('hi')] };
    c.bill(small);
    expect(c.bill(small)).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    c.bill({ model: 'offline', tools, system, messages: [user('x')] });
    const changed = c.bill({ model: 'offline', tools, system: [{ type: 'text', text: `${big(600)}!`, ...cc }], messages: [user('x')] });
    expect(changed.cache_read_input_tokens).toBeLessThan(changed.cache_creation_input_tokens);
    now.t += 6 * 60_000;
    expect(c.bill({ model: 'offline', tools, system, messages: [user('x')] }).cache_read_input_tokens).toBe(0);
  });

  it('looks back at most 20 blocks before a breakpoint for an earlier entry', () => {
    const { cache: c } = cache();
    const base = [user('a'.repeat(5000), true)];
    c.bill({ model: 'offline', messages: base });
    const near = [user('a'.repeat(5000)), assistant('b'), user('c', true)];
    expect(c.bill({ model: 'offline', messages: near }).cache_read_input_tokens).toBeGreaterThan(1000);
    const turns = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? assistant(`a${i}`) : user(`u${i}`)));
    const far = [user('a'.repeat(5000)), ...turns, assistant('z'), user('end', true)];
    expect(c.bill({ model: 'offline', messages: far }).cache_read_input_tokens).toBe(0);
  });
});
