import fs from 'node:fs';

/** The file's stat; undefined when it is gone, null when it cannot be looked at (permissions, I/O). */
export function statIfAny(file: string): fs.Stats | undefined | null {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return null;
  }
}
