import fs from 'node:fs';
import { lazyBuiltin } from './lazy-builtin.js';

const POOL_BYTES = 4096;

/**
 * Random bytes from the kernel's generator, read 4 KiB at a time from /dev/urandom and handed out
 * from that pool, as node:crypto's randomUUID hands out its own: without loading node:crypto,
 * whose first use costs a process ~1 MiB resident (a teammate's message ids and temp file names;
 * docs/architecture.md, "Scale"). Where /dev/urandom cannot be read, node:crypto fills the pool.
 */
export class EntropyPool {
  private pool = Buffer.alloc(0);
  private at = 0;

  constructor(private readonly fill: (buffer: Buffer) => void = fillFromKernel) {}

  take(count: number): Buffer {
    if (count > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} random bytes at a time`);
    if (this.at + count > this.pool.length) {
      this.pool = Buffer.allocUnsafe(POOL_BYTES);
      this.fill(this.pool);
      this.at = 0;
    }
    const bytes = this.pool.subarray(this.at, this.at + count);
    this.at += count;
    return bytes;
  }

  /** A version 4 UUID, as crypto.randomUUID gives. */
  uuid(): string {
    const bytes = Buffer.from(this.take(16));
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  hex(bytes: number): string {
    return this.take(bytes).toString('hex');
  }
}

function fillFromKernel(buffer: Buffer): void {
  let fd: number;
  try {
    fd = fs.openSync('/dev/urandom', 'r');
  } catch {
    lazyBuiltin.crypto().randomFillSync(buffer);
    return;
  }
  try {
    for (let filled = 0; filled < buffer.length;) {
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read <= 0) throw new Error('/dev/urandom gave no bytes');
      filled += read;
    }
  } catch {
    lazyBuiltin.crypto().randomFillSync(buffer);
  } finally {
    fs.closeSync(fd);
  }
}

/** The process's pool: message ids and temp file names. */
export const entropy = new EntropyPool();
