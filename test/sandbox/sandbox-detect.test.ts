import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSandbox, detectSandbox } from '../../src/sandbox/sandbox.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A bubblewrap stand-in: says its version, and fails when asked for what this machine cannot do. */
function fakeBwrap(refuses: string): string {
  const file = path.join(makeTempDir('teamd-bwrap-'), 'bwrap');
  fs.writeFileSync(
    file,
    `#!/bin/sh\ncase "$*" in *--version*) echo "bubblewrap 0.0-fake"; exit 0;; *${refuses}*) echo "no: ${refuses}" >&2; exit 1;; esac\nexit 0\n`,
    { mode: 0o755 },
  );
  return file;
}

describe('finding out what bubblewrap can do here', () => {
  it('a bubblewrap that cannot make a network namespace still confines commands, and says loudly that the network is not on its leash', () => {
    const kind = detectSandbox([fakeBwrap('--unshare-net')]);
    expect(kind).toMatchObject({ kind: 'bwrap', version: 'bubblewrap 0.0-fake' });
    expect(kind.kind === 'bwrap' && kind.noNet).toMatch(/cannot make a network namespace here/);
    expect(describeSandbox(kind, 'required')).toMatch(/NO network leash .*commands reach any host/);
  });

  it('one that can puts the network on the leash; one that cannot make a sandbox at all is none', () => {
    const kind = detectSandbox([fakeBwrap('--no-such-option')]);
    expect(kind).toMatchObject({ kind: 'bwrap', noNet: null });
    expect(describeSandbox(kind, 'required')).toMatch(/network only through the proxy/);
    expect(detectSandbox([fakeBwrap('--unshare-pid')]).kind).toBe('none');
  });
});
