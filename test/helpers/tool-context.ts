import path from 'node:path';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { createShellLauncher } from '../../src/sandbox/shell-launcher.js';
import type { ToolContext } from '../../src/contracts/tool.js';
import { openTaskBoard } from './board.js';
import { makeTempDir } from './temp-dir.js';

/** A tool context over a fresh workspace with a real board and shell launcher; tests override what they need. */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const workspace = makeTempDir('teamd-ws-');
  const { board } = openTaskBoard(path.join(workspace, '.team'));
  return {
    name: 'alice',
    workspace,
    stateDir: path.join(workspace, '.team'),
    shell: createShellLauncher({
      kind: detectSandbox(),
      mode: 'required',
      layout: { workspace, hidden: [path.join(workspace, '.team')] },
      baseEnv: process.env,
      envPolicy: { passNames: [], secretNames: [] },
      marker: { name: 'TEAMD_SPAWNED_BY', value: 'test' },
    }),
    board,
    mailbox: {} as ToolContext['mailbox'],
    signal: new AbortController().signal,
    claims: new Map(),
    control: { submitPlan: async () => 'req-1' },
    ...overrides,
  };
}
