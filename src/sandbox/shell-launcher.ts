import type { ShellLauncher } from '../contracts/tool.js';
import { commandEnv, type CommandEnvPolicy } from './command-env.js';
import { wrapCommand, type SandboxKind, type SandboxLayout, type SandboxMode } from './sandbox.js';

export interface ShellLauncherOptions {
  readonly kind: SandboxKind;
  readonly mode: SandboxMode;
  readonly layout: SandboxLayout;
  readonly baseEnv: NodeJS.ProcessEnv;
  /** Which of the teammate's variables its commands get (command-env.ts). */
  readonly envPolicy: CommandEnvPolicy;
  /** Put on every command's environment so the daemon can find its processes after a crash. */
  readonly marker: { readonly name: string; readonly value: string };
}

export function createShellLauncher(options: ShellLauncherOptions): ShellLauncher {
  const env = commandEnv(options.baseEnv, options.envPolicy, options.marker);
  return {
    launch: (command, workdir) => ({ ...wrapCommand(options.kind, options.mode, command, options.layout, workdir), env }),
  };
}
