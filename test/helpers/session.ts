import { createLogger } from '../../src/logger.js';
import type { ChatMessage } from '../../src/model/model-client.js';
import { SessionStore } from '../../src/teammate/session-store.js';

/** The conversation a teammate saved, as a restart would load it (the file holds appended records, not one message per line). */
export function savedMessages(file: string): ChatMessage[] {
  return new SessionStore(file, createLogger()).load().messages;
}

/** The saved conversation as text: a first line standing for the header, then one JSON message per line. */
export function savedSessionText(file: string): string {
  return ['(session)', ...savedMessages(file).map((message) => JSON.stringify(message))].join('\n');
}
