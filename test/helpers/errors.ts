import { TeamdError } from '../../src/errors.js';

/** The code of the TeamdError a call fails with, or undefined when it succeeds; anything else is rethrown. */
export async function codeOf(promise: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof TeamdError) return error.code;
    throw error;
  }
  return undefined;
}
