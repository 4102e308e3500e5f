/** Stable error codes. The CLI maps them to exit codes; library code only throws them. */
export type ErrorCode =
  | 'USAGE'
  | 'INVALID_INPUT'
  | 'INVALID_NAME'
  | 'STATE_DIR_MISSING'
  | 'TASK_NOT_FOUND'
  | 'TASK_CORRUPT'
  | 'CONFIG_CORRUPT'
  | 'UNKNOWN_RECIPIENT'
  | 'UNKNOWN_MEMBER'
  | 'ALREADY_RUNNING'
  | 'DAEMON_RUNNING'
  | 'DAEMON_NOT_RUNNING'
  | 'DAEMON_START_FAILED'
  | 'PROTOCOL'
  | 'MESSAGE_TOO_LARGE'
  | 'UNKNOWN_BLOCKER'
  | 'DEPENDENCY_CYCLE'
  | 'INVALID_TRANSITION'
  | 'NOT_OWNER'
  | 'STALE_CLAIM'
  | 'NOT_READY'
  | 'NOTHING_READY'
  | 'CONCURRENT_WRITE'
  | 'LOCK_TIMEOUT'
  | 'MCP_FAILED'
  | 'GOAL_NOT_DONE'
  | 'DETACHED'
  /** The PostgreSQL store cannot be reached (or refused the connection). */
  | 'STORE_UNAVAILABLE'
  | 'IO';

export class TeamdError extends Error {
  override readonly name = 'TeamdError';
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

export function isTeamdError(error: unknown, code?: ErrorCode): error is TeamdError {
  return error instanceof TeamdError && (code === undefined || error.code === code);
}

export function isNodeError(error: unknown, code?: string): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error && (code === undefined || (error as NodeJS.ErrnoException).code === code);
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
