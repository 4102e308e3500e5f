import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EntropyPool, entropy } from '../../src/platform/random-id.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('EntropyPool', () => {
  it('gives version 4 UUIDs, as crypto.randomUUID does, none twice in 20,000', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = entropy.uuid();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });

  it('reads the pool 4 KiB at a time and never hands out the same bytes twice', () => {
    let fills = 0;
    let counter = 0;
    const pool = new EntropyPool((buffer) => {
      fills++;
      for (let i = 0; i < buffer.length; i++) buffer[i] = counter++ % 256;
    });
    const taken = [...pool.take(4000), ...pool.take(200)];
    expect(fills).toBe(2);
    // 4,000 from the first pool, then the 200 that did not fit in its last 96 came from a new one.
    expect(taken.slice(0, 4000)).toEqual(Array.from({ length: 4000 }, (_, i) => i % 256));
    expect(taken.slice(4000)).toEqual(Array.from({ length: 200 }, (_, i) => (4096 + i) % 256));
    expect(() => pool.take(4097)).toThrow(RangeError);
  });

  it('hex gives twice as many hex digits as bytes', () => {
    expect(entropy.hex(4)).toMatch(/^[0-9a-f]{8}$/);
  });

  it('a process that writes files and makes message ids never loads node:crypto', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        import fs from 'node:fs';
        import os from 'node:os';
        import path from 'node:path';
        import { writeFileAtomicSync } from './dist/src/fs/atomic-write.js';
        import { newMessageId } from './dist/src/domain/message-builder.js';
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-entropy-'));
        writeFileAtomicSync(path.join(dir, 'a.json'), '{}');
        const id = newMessageId();
        fs.rmSync(dir, { recursive: true });
        console.log(JSON.stringify({ id, crypto: process.moduleLoadList.includes('NativeModule crypto') }));
        `,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    const result = JSON.parse(out.trim().split('\n').pop()!) as { id: string; crypto: boolean };
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.crypto).toBe(false);
  });
});
