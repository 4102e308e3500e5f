import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { START_BUILTINS, TEAMMATE_V8_FLAGS } from '../../../src/platform/boot/teammate-v8.js';
import { startDaemon } from '../../helpers/daemon.js';
import { runTeamd } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait.js';

interface Seen {
  readonly execArgv: string[];
  readonly flags: string[];
  /** Node's modules loaded after the first flag was set, up to the teammate's ready message. */
  readonly afterFlags: string[];
  /** Node's modules loaded before it. */
  readonly beforeFlags: string[];
  readonly gc: string;
  readonly newSpaceBytes: number;
}

/**
 * Preloaded into every process of the daemon (NODE_OPTIONS=-r, not a V8 flag): in a teammate,
 * records the V8 flags it sets and what Node loads after them, and writes it all at ready.
 */
function probe(dir: string, out: string): string {
  const file = path.join(dir, 'probe.cjs');
  fs.writeFileSync(
    file,
    `const v8 = require('node:v8');
const flags = []; let at = null;
const set = v8.setFlagsFromString;
v8.setFlagsFromString = function (flag) { if (at === null) at = process.moduleLoadList.length; flags.push(flag); return set.call(this, flag); };
const send = process.send;
if (send) process.send = function (message, ...rest) {
  if (message && message.type === 'ready') {
    const list = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule '));
    const all = process.moduleLoadList;
    // Written whole (temp + rename): the test reads it the moment it appears.
    require('node:fs').writeFileSync(${JSON.stringify(`${out}.tmp`)}, JSON.stringify({
      execArgv: process.execArgv, flags, gc: typeof globalThis.gc,
      beforeFlags: all.slice(0, at ?? all.length).filter((e) => e.startsWith('NativeModule ')),
      afterFlags: at === null ? list : all.slice(at).filter((e) => e.startsWith('NativeModule ')),
      newSpaceBytes: v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size,
    }));
    require('node:fs').renameSync(${JSON.stringify(`${out}.tmp`)}, ${JSON.stringify(out)});
  }
  return send.call(this, message, ...rest);
};
`,
  );
  return file;
}

describe("a teammate's V8 flags (src/platform/boot/teammate-v8.ts)", () => {
  it("are set inside the teammate before its code loads, with none on its command line and none of Node's modules compiled after them before ready", async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    const out = path.join(ws, 'seen.json');
    await startDaemon(dir, { env: { NODE_OPTIONS: `-r ${probe(ws, out)}` } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const seen = await waitFor(() => fs.existsSync(out) && (JSON.parse(fs.readFileSync(out, 'utf8')) as Seen), 'the teammate to be ready');
    // Any V8 flag on the command line makes Node refuse the code cache of its own modules.
    expect(seen.execArgv).toEqual([]);
    expect(seen.flags).toEqual([...TEAMMATE_V8_FLAGS]);
    // Everything it needs before ready was loaded first; after the flags, a module would be compiled from source.
    expect(seen.afterFlags).toEqual([]);
    for (const id of START_BUILTINS) expect(seen.beforeFlags).toContain(`NativeModule ${id.slice('node:'.length)}`);
    // --expose-gc, set at run time, still gives it V8's gc (heap-trim.ts, heap-bound.ts).
    expect(seen.gc).toBe('function');
    // The young generation stayed at its first 1 MiB semi-spaces through the whole start: the
    // flags were in force before the teammate's code allocated anything.
    expect(seen.newSpaceBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});
