import type { AgentEvent } from '../agent/loop.js';
import type { Logger } from '../logger.js';

/** What a teammate's log says about each event of its agent loop. */
export function logAgentEvent(logger: Logger, event: AgentEvent): void {
  switch (event.type) {
    case 'text':
      return logger.info({ text: event.text.slice(0, 500) }, 'model said');
    case 'tool_call':
      return logger.info({ tool: event.name, input: event.input }, 'tool call');
    case 'tool_result':
      return logger.info({ tool: event.name, isError: event.isError, output: event.content.slice(0, 300) }, 'tool result');
    case 'compacted':
      return logger.info({ how: event.how }, 'conversation compacted');
    case 'turn_end':
      return logger.info({ reason: event.reason }, 'turn ended');
    case 'error':
      return logger.warn({ err: event.error }, 'model call failed');
    case 'usage':
    case 'step':
      return;
  }
}
