import type { AgentEvent } from '../agent/loop.js';
import type { Logger } from '../logger.js';

/** Characters of a logged text kept from its start and from its end (a build error is at the end). */
const HEAD_CHARS = 300;
const TAIL_CHARS = 700;
/** A tool input's string fields (a whole file for write_file) are cut shorter. */
const INPUT_HEAD_CHARS = 120;
const INPUT_TAIL_CHARS = 120;

/** A bounded head and tail of a text, saying how much was left out: never a whole file in the log. */
export function headAndTail(text: string, head = HEAD_CHARS, tail = TAIL_CHARS): string {
  if (text.length <= head + tail + 40) return text;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters left out] …\n${text.slice(-tail)}`;
}

/** A tool's input with every long string field cut to a head and tail (for a log line, or a question to the lead). */
export function boundedInput(input: unknown): unknown {
  if (typeof input === 'string') return headAndTail(input, INPUT_HEAD_CHARS, INPUT_TAIL_CHARS);
  if (Array.isArray(input)) return input.slice(0, 20).map(boundedInput);
  if (typeof input === 'object' && input !== null) return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, boundedInput(value)]));
  return input;
}

/**
 * What a teammate's log says about each event of its agent loop. Every line of work on a task
 * carries its id (`teamd logs --task N`); a failed tool is a warning.
 */
export function logAgentEvent(logger: Logger, event: AgentEvent, taskId: number | null): void {
  const task = taskId === null ? {} : { taskId };
  switch (event.type) {
    case 'text':
      return logger.info({ ...task, text: headAndTail(event.text) }, 'model said');
    case 'tool_call':
      return logger.info({ ...task, tool: event.name, input: boundedInput(event.input) }, 'tool call');
    case 'tool_result': {
      const line = { ...task, tool: event.name, isError: event.isError, output: headAndTail(event.content) };
      return event.isError ? logger.warn(line, 'tool failed') : logger.info(line, 'tool result');
    }
    case 'compacted':
      return logger.info({ ...task, how: event.how }, 'conversation compacted');
    case 'turn_end':
      return logger.info({ ...task, reason: event.reason }, 'turn ended');
    case 'error':
      return logger.warn({ ...task, err: event.error }, 'model call failed');
    case 'usage':
    case 'step':
      return;
  }
}
