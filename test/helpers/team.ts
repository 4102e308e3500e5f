import { Mailbox } from '../../src/store/files/mailbox.js';
import { createLogger } from '../../src/log/logger.js';
import type { Message } from '../../src/contracts/message.js';
import fs from 'node:fs';
import { statePaths, type StatePaths } from '../../src/paths.js';

/** Writes a roster as the daemon would, so these names are valid recipients. */
export function writeRoster(root: string, names: readonly string[]): StatePaths {
  const paths = statePaths(root);
  fs.mkdirSync(paths.root, { recursive: true });
  fs.writeFileSync(paths.config, JSON.stringify({ members: names.map((name) => ({ name, role: 'coder', status: 'idle' })) }));
  return paths;
}

/** A teammate's request to run a bash command, in the lead's inbox (as its permission gate sends one): `ask(from, command)`. */
export function bashPermissionAsker(paths: StatePaths, taskId: number): (from: string, command: string) => Message {
  const mailbox = new Mailbox({ paths, logger: createLogger() });
  return (from, command) =>
    mailbox.send({
      from,
      to: 'lead',
      type: 'permission_request',
      content: `${from} asks to run bash: ${command}`,
      extra: { tool: 'bash', input: { command }, taskId },
    });
}
