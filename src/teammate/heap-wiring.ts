import v8 from 'node:v8';
import type { Logger } from '../log/logger.js';
import { HEAP_EXIT_CODE } from '../supervisor/restart-policy.js';
import { HeapBound } from './heap-bound.js';
import { HeapTrim, type Collector } from './heap-trim.js';
import type { HeapWatch } from './teammate-deps.js';

export interface TeammateHeapOptions {
  /** The bound (the setting heapMaxBytes). */
  readonly limitBytes: number;
  readonly logger: Logger;
  /** Stops the teammate after its current step. */
  readonly stop: () => void;
  /** Ends the process now, with this code. */
  readonly exit: (code: number) => void;
  /** V8's gc, as --expose-gc gives it (platform/boot/teammate-v8.ts installs it); none: V8 decides alone. */
  readonly gc: unknown;
}

export interface TeammateHeap {
  /** For the runtime: told when work starts and when it goes idle. */
  readonly watch: HeapWatch;
  /** The heap went past its bound: the teammate exits with HEAP_EXIT_CODE once it has stopped. */
  readonly over: () => boolean;
  close(): void;
}

const MIB = 1024 * 1024;

/** A teammate's heap: given back when it goes idle after work (heap-trim.ts), and bounded (heap-bound.ts). */
export function teammateHeap(options: TeammateHeapOptions): TeammateHeap {
  const { limitBytes, logger } = options;
  const collector = collectorOf(options.gc);
  const trim = new HeapTrim(collector);
  const sizes = (used: number) => ({ heapMiB: Math.round(used / MIB), boundMiB: Math.round(limitBytes / MIB) });
  const bound = new HeapBound({
    limitBytes,
    usedBytes: () => v8.getHeapStatistics().used_heap_size,
    collect: collector ? () => collector.full() : null,
    over: (used) => {
      logger.error(sizes(used), 'the heap grew past heapMaxBytes: stopping after this step, to be started afresh by the daemon');
      options.stop();
    },
    overAtOnce: (used) => {
      logger.error(sizes(used), 'the heap grew past twice heapMaxBytes: exiting now, to be started afresh by the daemon');
      options.exit(HEAP_EXIT_CODE);
    },
  });
  return {
    watch: {
      working: () => {
        trim.working();
        bound.working();
      },
      idle: () => {
        bound.idle();
        trim.idle();
      },
    },
    over: () => bound.tripped,
    close: () => {
      bound.close();
      trim.cancel();
    },
  };
}

/**
 * V8's collections, when the teammate has V8's gc. Node 20's gc() takes an options object
 * ({ type: 'minor' }) and scavenges for it; without one it collects in full.
 */
function collectorOf(gc: unknown): Collector | null {
  if (typeof gc !== 'function') return null;
  const collect = gc as (options?: { type: 'minor' }) => void;
  return { full: () => collect(), young: () => collect({ type: 'minor' }) };
}
