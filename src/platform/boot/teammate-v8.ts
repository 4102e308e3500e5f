import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * V8 flags of every teammate, set from inside the process (tuneTeammateV8): a small young
 * generation (a growth factor of 1 keeps it at its starting 1 MiB semi-space, as
 * --max-semi-space-size=1 did on the command line), V8's size-over-speed mode, neither the
 * optimizing compiler nor the baseline one (a teammate waits on the model and the disk, not on
 * its own CPU; TurboFan's code and zones cost it ~3.5 MiB, Sparkplug's machine code ~1.8 MiB
 * after 400 tasks), bytecode dropped by the second full collection that finds its function
 * unused since the one before (V8's default waits five: a teammate's idle-time collection,
 * heap-trim.ts, then drops start-up code and what the code cache brought but nothing ran), every
 * full collection compacting (the idle one then gives back fragmented pages), and V8's gc, with
 * which it gives memory back when it goes idle (teammate/heap-trim.ts). The heap's bound is the
 * teammate's own check (teammate/heap-bound.ts): `--max-old-space-size` is read only at start.
 * Measured in docs/architecture.md, "Scale" and "Teammate start-up".
 */
export const TEAMMATE_V8_FLAGS = [
  '--semi-space-growth-factor=1',
  '--optimize-for-size',
  '--no-opt',
  '--no-sparkplug',
  '--bytecode-old-age=1',
  '--compact-on-every-full-gc',
  '--expose-gc',
] as const;

/**
 * Node's modules a teammate loads before it is ready, beyond those Node's own start loads (its
 * IPC channel's net and stream): loaded before the flags change, so they come from the code
 * cache built into Node. V8 refuses that cache once any flag differs from its defaults (the
 * flags are part of every cache's check), and each module loaded after is compiled from source.
 * test/platform/boot/teammate-v8.test.ts checks that a teammate loads none between the flags and ready.
 */
export const START_BUILTINS = [
  'node:assert',
  'node:cluster',
  'node:dns',
  'node:fs/promises',
  'node:os',
  // yaml (skills' front matter) requires it.
  'node:process',
  'node:timers/promises',
  'node:worker_threads',
] as const;

/**
 * Tunes a teammate's V8 before any of its own code is compiled, from inside the process: a
 * flag given on the command line instead would cost every start ~20 ms of compiling Node's
 * modules from source (docs/architecture.md, "Teammate start-up"). Then installs `gc` as
 * --expose-gc does (a context made after the flag has it; the collector is the isolate's).
 * Set at this one point of every start, the flags are the same whenever the teammate's bundle
 * is compiled, so its code cache (code-cache.ts) stays valid from one start to the next.
 */
export function tuneTeammateV8(load: (id: string) => unknown, global: { gc?: unknown }): void {
  for (const id of START_BUILTINS) load(id);
  for (const flag of TEAMMATE_V8_FLAGS) v8.setFlagsFromString(flag);
  if (typeof global.gc === 'function') return;
  try {
    global.gc = vm.runInNewContext('gc') as unknown;
  } catch {
    // A Node whose V8 did not take the flag: no gc, and the teammate only gives memory back when V8 decides to (heap-trim.ts).
  }
}
