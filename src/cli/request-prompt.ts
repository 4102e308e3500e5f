import { describeRequestInput, type PlanRequest } from '../inbox/plan-requests.js';

/** What the person typed at a request's prompt in `teamd plans --watch`. */
export type WalkChoice =
  | { readonly kind: 'approve' }
  | { readonly kind: 'always' }
  | { readonly kind: 'reject'; readonly reason: string | null }
  | { readonly kind: 'skip' }
  | { readonly kind: 'quit' }
  | { readonly kind: 'again' }
  | { readonly kind: 'unknown'; readonly text: string };

/**
 * One line, read as the prompt offers it: a, A (always), r (optionally followed by the reason:
 * `r not on Fridays`), s, q; the words approve, always, reject, skip and quit too. An empty line
 * shows the request again. `always` is a capital A, never a lower-case one: a slip of the shift
 * key must not grant a standing rule.
 */
export function walkChoice(line: string): WalkChoice {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'again' };
  const [word = '', ...rest] = trimmed.split(/\s+/);
  const reason = rest.join(' ').trim();
  switch (word) {
    case 'a':
    case 'approve':
      return rest.length === 0 ? { kind: 'approve' } : { kind: 'unknown', text: trimmed };
    case 'A':
    case 'always':
      return rest.length === 0 ? { kind: 'always' } : { kind: 'unknown', text: trimmed };
    case 'r':
    case 'reject':
      return { kind: 'reject', reason: reason === '' ? null : reason };
    case 's':
    case 'skip':
      return { kind: 'skip' };
    case 'q':
    case 'quit':
      return { kind: 'quit' };
    default:
      return { kind: 'unknown', text: trimmed };
  }
}

/** How long a request has waited: 45s, 12m, 3h, 2d. */
export function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * A waiting request as the walk shows it: who asks what, for which task, how long ago, the call
 * or the plan in full (indented), and the answers it takes. `rule`: what "always" would add, or
 * null where none is offered (a plan, a call no rule can describe).
 */
export function requestPrompt(request: PlanRequest, waiting: number, rule: string | null, now: number): string {
  const task = request.taskId === null ? '' : ` for task ${request.taskId}`;
  const when = `${age(now - Date.parse(request.at))} ago, request ${request.requestId.slice(0, 8)}; ${waiting} waiting`;
  const head =
    request.kind === 'permission' ? `${request.from} asks to run ${request.tool ?? '?'}${task} (${when}):` : `${request.from}'s plan${task} (${when}):`;
  const body = (request.kind === 'permission' ? describeRequestInput(request.input) : request.plan)
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  const choices = ['a approve', ...(rule ? [`A always allow ${rule}`] : []), 'r reject (r <reason>)', 's skip', 'q quit'];
  return `\n${head}\n${body}\n${choices.join(', ')}? `;
}
