/** One pino line, as `teamd logs` filters and shows it. */
export interface LogEntry {
  readonly time: number | null;
  readonly level: number;
  /** The teammate, or the component (daemon, cli). */
  readonly who: string;
  readonly msg: string;
  readonly taskId: number | null;
  readonly fields: Readonly<Record<string, unknown>>;
}

export const LEVEL_NUMBERS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** A pino JSON line, or null for anything else (a stack trace a crash wrote, a torn line). */
export function parseLogLine(line: string): LogEntry | null {
  if (!line.startsWith('{')) return null;
  let fields: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    fields = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  return {
    time: typeof fields.time === 'number' ? fields.time : null,
    level: typeof fields.level === 'number' ? fields.level : 30,
    who: typeof fields.teammate === 'string' ? fields.teammate : typeof fields.component === 'string' ? fields.component : '',
    msg: typeof fields.msg === 'string' ? fields.msg : JSON.stringify(fields.msg ?? ''),
    taskId: typeof fields.taskId === 'number' ? fields.taskId : null,
    fields,
  };
}
