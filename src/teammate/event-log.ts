import type { AgentEvent } from '../agent/loop.js';
import type { Logger } from '../log/logger.js';
import { boundedInput, headAndTail } from '../text.js';

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
