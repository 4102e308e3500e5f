import fs from 'node:fs';
import type { ChatMessage } from '../../src/contracts/model.js';
import { parseSession } from '../../src/teammate/session-store.js';

/**
 * The conversation a teammate saved, as a restart would load it (the file holds appended records,
 * not one message per line). Read-only: unlike the teammate's own load, an unreadable file is
 * never moved aside, since the teammate may be writing it right now.
 */
export function savedMessages(file: string): ChatMessage[] {
  if (!fs.existsSync(file)) return [];
  return parseSession(fs.readFileSync(file, 'utf8')).messages;
}

/** The saved conversation as text: a first line standing for the header, then one JSON message per line. */
export function savedSessionText(file: string): string {
  return ['(session)', ...savedMessages(file).map((message) => JSON.stringify(message))].join('\n');
}
