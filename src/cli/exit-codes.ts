import { assertNever, type ErrorCode } from '../errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOTHING_READY = 3;
/** The board refused a change because of its state: not ready, not yours, stale claim, wrong status. */
export const EXIT_CONFLICT = 4;

/** teamd run after Ctrl-C: the team works on without the terminal (128 + SIGINT, as a shell reports it). */
export const EXIT_DETACHED = 130;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'USAGE':
    case 'INVALID_INPUT':
    case 'INVALID_NAME':
    case 'UNKNOWN_RECIPIENT':
    case 'UNKNOWN_MEMBER':
    case 'MESSAGE_TOO_LARGE':
      return EXIT_USAGE;
    case 'NOTHING_READY':
      return EXIT_NOTHING_READY;
    case 'NOT_READY':
    case 'NOT_OWNER':
    case 'STALE_CLAIM':
    case 'INVALID_TRANSITION':
    case 'CONCURRENT_WRITE':
    case 'ALREADY_RUNNING':
    case 'DAEMON_RUNNING':
    case 'UNKNOWN_BLOCKER':
    case 'DEPENDENCY_CYCLE':
      return EXIT_CONFLICT;
    case 'STATE_DIR_MISSING':
    case 'TASK_NOT_FOUND':
    case 'TASK_CORRUPT':
    case 'CONFIG_CORRUPT':
    case 'LOCK_TIMEOUT':
    case 'IO':
    case 'MCP_FAILED':
    case 'GOAL_NOT_DONE':
    case 'DAEMON_NOT_RUNNING':
    case 'DAEMON_START_FAILED':
    case 'PROTOCOL':
    case 'STORE_UNAVAILABLE':
      return EXIT_FAILURE;
    case 'DETACHED':
      return EXIT_DETACHED;
    default:
      return assertNever(code);
  }
}
