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

/**
 * A system error in one line that starts with its code: Node's own messages already do
 * ("ENOSPC: no space left on device, write"), others get it put in front.
 */
export function errorWithCode(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return error.message.startsWith(`${code}:`) ? error.message : `${code}: ${error.message}`;
}

/** Codes of a disk that has no room left (space or quota): it passes once someone frees some. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/** The error, or one of its causes, says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  let at: unknown = error;
  for (let depth = 0; depth < 8 && at instanceof Error; depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (code !== undefined && DISK_FULL_CODES.has(code)) return true;
    at = at.cause;
  }
  return false;
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
