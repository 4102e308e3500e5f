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

/** The error and its causes, nearest first (at most 8: a cycle of causes ends too). */
function* causeChain(error: unknown): Generator<Error> {
  let at: unknown = error;
  for (let depth = 0; depth < 8 && at instanceof Error; depth++) {
    yield at;
    at = at.cause;
  }
}

/** The error, or one of its causes, says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (const at of causeChain(error)) {
    const code = (at as NodeJS.ErrnoException).code;
    if (code !== undefined && DISK_FULL_CODES.has(code)) return true;
  }
  return false;
}

/**
 * A write that took effect but could not be made durable: the file was renamed into place, or
 * the record appended, and every process already sees it; only the sync to disk failed, so a
 * power cut could still undo it. Never "nothing was changed": retrying would do it twice.
 */
export function writtenNotSynced(what: string, error: unknown): TeamdError {
  const reason = error instanceof Error ? errorWithCode(error) : String(error);
  return new TeamdError('IO', `${what} was written, but syncing it to disk failed (${reason}): the change stands, though a power cut could still undo it`, {
    cause: error,
    details: { committed: true },
  });
}

/** The error, or one of its causes, is a write that took effect (writtenNotSynced). */
export function isCommitted(error: unknown): error is Error {
  for (const at of causeChain(error)) if (at instanceof TeamdError && at.details.committed === true) return true;
  return false;
}

/** The first system error code (ENOSPC, EACCES...) of the error or its causes. */
export function systemCode(error: unknown): string | undefined {
  for (const at of causeChain(error)) {
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  }
  return undefined;
}

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
