import type { ShellLauncher } from '../contracts/tool.js';
import { commandEnv, type CommandEnvPolicy } from './command-env.js';
import { proxyEnv } from './net-bridge.js';
import { wrapCommand, type SandboxKind, type SandboxLayout, type SandboxMode } from './sandbox.js';

export interface ShellLauncherOptions {
  readonly kind: SandboxKind;
  readonly mode: SandboxMode;
  /** The view commands get; a function is asked at each launch (the settings can change it while the teammate runs). */
  readonly layout: SandboxLayout | (() => SandboxLayout);
  readonly baseEnv: NodeJS.ProcessEnv;
  /** Which of the teammate's variables its commands get (command-env.ts). */
  readonly envPolicy: CommandEnvPolicy;
  /** Put on every command's environment so the daemon can find its processes after a crash. */
  readonly marker: { readonly name: string; readonly value: string };
}

export function createShellLauncher(options: ShellLauncherOptions): ShellLauncher {
  const env = commandEnv(options.baseEnv, options.envPolicy, options.marker);
  const leashed = { ...env, ...proxyEnv() };
  const layoutNow = typeof options.layout === 'function' ? options.layout : () => options.layout as SandboxLayout;
  return {
    launch: (command, workdir) => {
      const layout = layoutNow();
      const wrapped = wrapCommand(options.kind, options.mode, command, layout, workdir);
      return { ...wrapped, env: wrapped.confined && layout.network ? leashed : env };
    },
  };
}
