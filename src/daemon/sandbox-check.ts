import { TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { describeSandbox, detectSandbox, type SandboxKind, type SandboxMode } from '../sandbox/sandbox.js';
import type { SandboxReport } from '../proc/pid-file.js';

/** Refuses to start without a sandbox when the settings require one; otherwise says loudly that there is none. */
export function checkSandbox(mode: SandboxMode, logger: Logger): SandboxReport & { readonly kind: SandboxKind } {
  const kind = detectSandbox();
  const text = describeSandbox(kind, mode);
  if (mode === 'required' && kind.kind === 'none') {
    throw new TeamdError(
      'DAEMON_START_FAILED',
      `teammates' commands cannot be sandboxed: ${kind.why}; or, to run them unconfined, set "sandbox": "preferred" in the settings of config.json`,
    );
  }
  const confined = kind.kind === 'bwrap' && mode !== 'off';
  if (confined) logger.info({ sandbox: text }, 'commands sandboxed');
  else logger.warn({ sandbox: text }, `WARNING: teammates' commands are NOT sandboxed: ${text}`);
  return { description: text, confined, networkLeashed: confined && kind.kind === 'bwrap' && !kind.noNet, kind };
}
