import { parseDirective, type Directive } from '../../contracts/directives.js';
import type { Block, OfflineRequest, OfflineTurn } from './offline-types.js';

/** One thing in the conversation, in order: a directive (a task, a message…), a tool call, or its result. */
export interface Step {
  readonly directive?: { directive: Directive; text: string };
  readonly toolUse?: { id: string; name: string; input: Record<string, unknown> };
  readonly result?: { id: string; text: string; isError: boolean };
}

/** The conversation as steps; messages riding in a tool result come after its output. */
export function flatten(messages: OfflineRequest['messages']): Step[] {
  const steps: Step[] = [];
  for (const message of messages) {
    const blocks: readonly Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type === 'text' && message.role === 'user') {
        const text = String(block.text);
        const directive = parseDirective(text);
        if (directive) steps.push({ directive: { directive, text } });
      } else if (block.type === 'tool_use') {
        const use = block as { id: string; name: string; input: Record<string, unknown> };
        steps.push({ toolUse: { id: use.id, name: use.name, input: use.input } });
      } else if (block.type === 'tool_result') {
        // Messages that arrive mid-task ride in the last tool result's content, after its output.
        const result = block as { tool_use_id: string; content?: string | readonly { type: string; text?: string }[]; is_error?: boolean };
        const parts = typeof result.content === 'string' ? [result.content] : (result.content ?? []).map((c) => c.text ?? '');
        const riders = parts.flatMap((text) => {
          const directive = parseDirective(text);
          return directive ? [{ directive: { directive, text } }] : [];
        });
        const output = parts.filter((text) => !parseDirective(text)).join('');
        // A call cut off by the output limit, or one the teammate stopped before it finished ([teamd:interrupted]: "make it again"), was not run: as if it had never been made.
        const notRun = riders.some((r) => r.directive.directive.kind === 'continue') || output.startsWith('[teamd:interrupted]');
        if (!notRun) steps.push({ result: { id: result.tool_use_id, text: output, isError: result.is_error === true } });
        steps.push(...riders);
      }
    }
  }
  return steps;
}

let sequence = 0;

export function call(name: string, input: Record<string, unknown>): OfflineTurn {
  sequence += 1;
  return { content: [{ type: 'tool_use', id: `toolu_offline_${Date.now().toString(36)}_${sequence}`, name, input }], stop_reason: 'tool_use' };
}

export function say(text: string): OfflineTurn {
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}

export function lastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
