import { isAlive } from '../proc/pid-file.js';
import { stoppedHint } from '../daemon/not-answering.js';
import { isStopped } from '../proc/process-identity.js';
import type { Member, MemberStatus } from '../contracts/roster.js';

/** What a member looks like to the person: a shown status may differ from the roster's when the daemon is gone. */
export interface MemberView {
  readonly name: string;
  readonly role: string;
  /**
   * The roster's status, or `stopped` / `unknown` when the daemon that would keep it true is gone;
   * `lost` for a member of another host whose lease ran out (a shared store).
   */
  readonly status: MemberStatus | 'stopped' | 'unknown' | 'lost';
  /** The host that runs it, in a shared store (null: this host's, or the file store). */
  readonly host?: string | null;
  readonly pid: number | null;
  readonly task: number | null;
  readonly restarts: number;
  readonly startedAt: string | null;
  readonly model: string;
  readonly lastExit: string | null;
  readonly usage: Member['usage'] | null;
  readonly problem: string | null;
  readonly retryAt: string | null;
  readonly wakes: number;
  /** Requests of its commands the network proxy refused (its log names each). */
  readonly netRefused: number;
}

/** Statuses only a running daemon keeps true: with it gone, they are stale. */
const LIVE_STATUSES: readonly MemberStatus[] = ['starting', 'working', 'waiting-plan', 'waiting-permission', 'idle', 'stopping', 'crashed'];

/**
 * A member as shown: with the daemon down, a member the roster still calls live is `stopped`
 * when its process is gone (its daemon died and it exited with it), `unknown` while a process
 * with its pid still runs.
 */
export function memberView(member: Member, teamModel: string, daemonRunning: boolean): MemberView {
  const alive = member.pid != null && isAlive(member.pid);
  // A stopped process shows its last status, but takes no work and answers nothing until continued.
  const stopped = alive && isStopped(member.pid!);
  const stale = !daemonRunning && LIVE_STATUSES.includes(member.status);
  return {
    name: member.name,
    role: member.role,
    status: stale ? (alive ? 'unknown' : 'stopped') : member.status,
    pid: alive ? member.pid! : null,
    task: member.task ?? null,
    restarts: member.restarts ?? 0,
    startedAt: member.startedAt ?? null,
    model: member.model ?? teamModel,
    lastExit: member.lastExit ?? null,
    usage: member.usage ?? null,
    problem: stopped ? stoppedHint(member.pid!, 'it takes no work and answers nothing') : (member.problem ?? null),
    retryAt: stopped ? null : (member.retryAt ?? null),
    wakes: member.wakes ?? 0,
    netRefused: member.netRefused ?? 0,
  };
}

/**
 * A member another host's daemon runs (a shared store): its pid is that host's, never checked
 * here; it is `lost` once that host's lease ran out.
 */
export function remoteMemberView(member: Member, host: string, lost: boolean, teamModel: string): MemberView {
  return { ...memberView({ ...member, pid: null }, teamModel, true), status: lost ? 'lost' : member.status, host };
}

/** 45s, 12m, 3h 5m, 2d 4h: a duration for a person. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

export function formatMembers(members: readonly MemberView[], now: Date): string {
  if (members.length === 0) return 'no teammates (add one: teamd spawn <name> <role>)\n';
  const count = (m: MemberView, key: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'): string => (m.usage ? String(m.usage[key]) : '-');
  const rows = members.map((m) => [
    m.host ? `${m.name}@${m.host}` : m.name,
    m.role,
    m.status,
    m.pid === null ? '-' : String(m.pid),
    m.task === null ? '-' : String(m.task),
    m.model,
    m.pid !== null && m.startedAt ? formatDuration(now.getTime() - Date.parse(m.startedAt)) : '-',
    String(m.restarts),
    m.lastExit ?? '-',
    count(m, 'inputTokens'),
    count(m, 'outputTokens'),
    count(m, 'cacheReadTokens'),
    count(m, 'cacheWriteTokens'),
    cacheShare(m.usage),
  ]);
  const header = ['NAME', 'ROLE', 'STATUS', 'PID', 'TASK', 'MODEL', 'UP', 'RESTARTS', 'LAST-EXIT', 'IN', 'OUT', 'CACHE-READ', 'CACHE-WRITE', 'CACHED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return `${[header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** The share of input tokens read from the prompt cache (what makes long conversations cheap). */
function cacheShare(usage: MemberView['usage']): string {
  if (!usage) return '-';
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return input === 0 ? '-' : `${Math.round((100 * usage.cacheReadTokens) / input)}%`;
}
