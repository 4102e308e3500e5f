import fs from 'node:fs';
import { isNodeError, TeamdError } from '../errors.js';

/** A file's text, or null when it does not exist; any other failure is an IO error naming the file. */
export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (isNodeError(error, 'ENOENT')) return null;
    throw new TeamdError('IO', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}
