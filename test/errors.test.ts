import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { errorWithCode, isCommitted, isDiskFull, systemCode, TeamdError, writtenNotSynced } from '../src/errors.js';

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

describe('what lies beneath an error', () => {
  const full = Object.assign(new Error('ENOSPC: no space left on device, fsync'), { code: 'ENOSPC' });

  it('a write that stands is known as such through the errors that wrap it, and names its system error', () => {
    const unsynced = writtenNotSynced('/x/task_2.json', full);
    expect(unsynced.message).toBe(
      '/x/task_2.json was written, but syncing it to disk failed (ENOSPC: no space left on device, fsync): the change stands, though a power cut could still undo it',
    );
    const wrapped = new TeamdError('IO', 'outer', { cause: unsynced });
    expect([isCommitted(unsynced), isCommitted(wrapped), isCommitted(new TeamdError('IO', 'refused', { cause: full }))]).toEqual([true, true, false]);
    expect([systemCode(wrapped), isDiskFull(wrapped), systemCode(new TeamdError('USAGE', 'no cause'))]).toEqual(['ENOSPC', true, undefined]);
  });

  it('a cycle of causes ends the walk', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect([isCommitted(a), systemCode(a), isDiskFull(a)]).toEqual([false, undefined, false]);
  });
});
