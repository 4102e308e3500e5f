import type { StatePaths } from '../paths.js';
import { readBoundedText } from '../fs/read-text.js';
import { parseSession } from '../teammate/session-store.js';

/** One step of a task's conversation: the model's words, a tool call with its input, the call's result, or what teamd told the model. */
export interface Turn {
  readonly kind: 'said' | 'call' | 'result' | 'told';
  readonly text: string;
  readonly tool?: string;
  readonly error?: boolean;
}

/** The most of one step, and of steps, a task's page shows (the session file has it all). */
const STEP_CHARS = 2_000;
const MAX_STEPS = 300;
/** A session file larger than this is not read for a page. */
const SESSION_MAX_BYTES = 32 * 1024 * 1024;

type Block = { readonly type: string; readonly [key: string]: unknown };

/** A field of a block as text: a string as it is, anything else (a model may send anything) as nothing. */
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

const cut = (text: string): string => (text.length > STEP_CHARS ? `${text.slice(0, STEP_CHARS)}…` : text);

/** Whether a directive teamd wrote into the conversation is about task `id` (its claim, a resume, a reminder). */
function aboutTask(text: string, id: number): boolean {
  return new RegExp(`^\\[teamd:(task id|resume task|remind task)=${id}[\\] ]`, 'm').test(text);
}

/** A directive that starts another task's part of the conversation. */
function startsOther(text: string, id: number): boolean {
  const match = /^\[teamd:task id=(\d+)\]/m.exec(text);
  return match !== null && Number(match[1]) !== id;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: unknown) => (typeof part === 'object' && part !== null && (part as Block).type === 'text' ? str((part as Block).text) : ''))
      .join('\n');
  return '';
}

/**
 * The conversation of a task as its teammate's session file holds it: from the directive that
 * handed it the task (or resumed it) to the next task's, as steps. What compaction summarised is
 * gone from the file, and so from the page (the log lines stay). Read-only: a file that cannot be
 * read gives one line saying why.
 */
export function taskTurns(paths: StatePaths, who: string | null, id: number): { readonly turns: Turn[]; readonly note: string | null } {
  if (who === null) return { turns: [], note: null };
  const read = readBoundedText(paths.sessionFile(who), SESSION_MAX_BYTES);
  if (read.kind === 'missing') return { turns: [], note: null };
  if (read.kind === 'unusable') return { turns: [], note: `${who}'s conversation is not shown: ${read.reason}` };
  let messages;
  try {
    messages = parseSession(read.text).messages;
  } catch (error) {
    return { turns: [], note: `${who}'s conversation cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  const turns: Turn[] = [];
  const calls = new Map<string, string>();
  let inside = false;
  for (const message of messages) {
    const blocks = (Array.isArray(message.content) ? message.content : []) as readonly Block[];
    for (const block of blocks) {
      const text = block.type === 'text' ? str(block.text) : '';
      if (message.role === 'user' && text) {
        if (aboutTask(text, id)) inside = true;
        else if (startsOther(text, id)) inside = false;
      }
      if (!inside) continue;
      if (block.type === 'text' && text.trim()) turns.push({ kind: message.role === 'assistant' ? 'said' : 'told', text: cut(text.trim()) });
      else if (block.type === 'tool_use') {
        calls.set(str(block.id), str(block.name));
        turns.push({ kind: 'call', tool: str(block.name), text: cut(JSON.stringify(block.input ?? {})) });
      } else if (block.type === 'tool_result')
        turns.push({ kind: 'result', tool: calls.get(str(block.tool_use_id)) ?? '', text: cut(textOf(block.content)), error: block.is_error === true });
    }
  }
  return { turns: turns.slice(-MAX_STEPS), note: turns.length > MAX_STEPS ? `the first ${turns.length - MAX_STEPS} steps are left out` : null };
}
