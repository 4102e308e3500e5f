/** Every `teamd` command, by name: main.ts loads each when named; the start file names its code cache after it. */
export const COMMAND_NAMES = [
  'start',
  'stop',
  'spawn',
  'shutdown',
  'budget',
  'status',
  'team',
  'approve',
  'reject',
  'plans',
  'check-settings',
  'merge',
  'worktree',
  'watch',
  'logs',
  'jobs',
  'cron',
  'mcp',
  'memory',
  'skills',
  'service',
  'run',
  'lead',
  'task',
  'send',
  'broadcast',
  'inbox',
  'demo',
  'completion',
  'store',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

export function isCommandName(name: string | undefined): name is CommandName {
  return name !== undefined && (COMMAND_NAMES as readonly string[]).includes(name);
}
