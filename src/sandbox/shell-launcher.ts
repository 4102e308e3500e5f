import type { ShellLauncher } from '../contracts/tool.js';
import { commandEnv } from './command-env.js';
import { wrapCommand, type SandboxKind, type SandboxLayout, type SandboxMode } from './sandbox.js';

export interface ShellLauncherOptions {
  readonly kind: SandboxKind;
  readonly mode: SandboxMode;
  readonly layout: SandboxLayout;
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly secretNames: readonly string[];
  /** Put on every command's environment so the daemon can find its processes after a crash. */
  readonly marker: { readonly name: string; readonly value: string };
}

export function createShellLauncher(options: ShellLauncherOptions): ShellLauncher {
  const env = commandEnv(options.baseEnv, options.secretNames, options.marker);
  return {
    launch: (command, workdir) => ({ ...wrapCommand(options.kind, options.mode, command, options.layout, workdir), env }),
  };
}
