import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { errorWithCode } from '../src/errors.js';

describe('errorWithCode', () => {
  it("gives Node's own system error as it is: its message starts with the code", () => {
    let caught: unknown;
    try {
      fs.readFileSync(path.join(os.tmpdir(), `teamd-no-such-file-${process.pid}`));
    } catch (error) {
      caught = error;
    }
    expect(errorWithCode(caught as Error)).toMatch(/^ENOENT: no such file or directory, open /);
  });

  it('puts the code in front of a message that does not start with it, and says "error" when there is none', () => {
    expect(errorWithCode(Object.assign(new Error('the disk said no'), { code: 'EIO' }))).toBe('EIO: the disk said no');
    expect(errorWithCode(new Error('plain'))).toBe('error: plain');
  });
});
