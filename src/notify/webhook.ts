import type { Notice, WebhookTarget } from '../contracts/notifications.js';

/** What one POST came back with: its status and the receiver's Retry-After, if any. */
export interface PostAnswer {
  readonly status: number;
  readonly retryAfterMs: number | null;
}

/** Sends one POST; rejects on a network failure or at the signal (the attempt's timeout, the daemon stopping). */
export type Post = (
  url: string,
  init: { readonly headers: Record<string, string>; readonly body: string; readonly signal: AbortSignal },
) => Promise<PostAnswer>;

/** The longest wait between two tries, whatever the receiver's Retry-After says. */
export const MAX_RETRY_WAIT_MS = 5 * 60_000;

export interface SendOptions {
  readonly attempts: number;
  readonly timeoutMs: number;
  /** The daemon stopping: the sending ends where it is, and is taken up at the next start. */
  readonly signal: AbortSignal;
  readonly post: Post;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly team: string;
}

export interface SendOutcome {
  readonly ok: boolean;
  readonly attempts: number;
  readonly error?: string;
  /** The daemon stopped before it ended: not an outcome to record. */
  readonly interrupted?: boolean;
}

/** The body a webhook gets: the notice as JSON (with the team's name), or Slack's `{"text": …}`. */
export function webhookBody(target: Pick<WebhookTarget, 'format'>, notice: Notice, team: string): string {
  if (target.format === 'json') return JSON.stringify({ team, ...notice });
  return JSON.stringify({ text: `*[teamd ${slackEscape(team)}] ${slackEscape(notice.title)}*\n${slackEscape(notice.text)}` });
}

/** Slack reads &, < and > as markup (links, mentions such as <!channel>): text a teammate wrote must not ping anyone. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Who a log line names for a webhook: its origin only (a Slack webhook's path is its secret). */
export function describeTarget(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(an address that does not parse)';
  }
}

/** Statuses worth another try: the receiver is busy or broken for now. Any other 4xx will not change by trying again. */
function retryable(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * POSTs a notice to one webhook, trying at most `attempts` times: a network failure, a timeout,
 * 408/425/429 or a 5xx is tried again after 1 s, 2 s, 4 s … (or the receiver's Retry-After),
 * never waiting more than MAX_RETRY_WAIT_MS; a 2xx is done; any other status gives up at once.
 */
export async function sendNotice(target: WebhookTarget, notice: Notice, options: SendOptions): Promise<SendOutcome> {
  const body = webhookBody(target, notice, options.team);
  const headers = { ...target.headers, 'content-type': 'application/json', 'user-agent': 'teamd' };
  let error = '';
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    if (options.signal.aborted) return { ok: false, attempts: attempt - 1, interrupted: true };
    let retryAfterMs: number | null = null;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const answer = await options.post(target.url, { headers, body, signal: AbortSignal.any([options.signal, timeout]) });
      if (answer.status >= 200 && answer.status < 300) return { ok: true, attempts: attempt };
      error = `the webhook answered ${answer.status}`;
      if (!retryable(answer.status)) return { ok: false, attempts: attempt, error };
      retryAfterMs = answer.retryAfterMs;
    } catch (cause) {
      if (options.signal.aborted) return { ok: false, attempts: attempt, interrupted: true };
      error = timeout.aborted
        ? `no answer within ${options.timeoutMs} ms`
        : `could not reach the webhook: ${cause instanceof Error ? cause.message : String(cause)}`;
    }
    if (attempt === options.attempts) break;
    const wait = Math.min(MAX_RETRY_WAIT_MS, Math.max(retryAfterMs ?? 0, 1000 * 2 ** (attempt - 1)));
    try {
      await options.sleep(wait, options.signal);
    } catch {
      return { ok: false, attempts: attempt, interrupted: true };
    }
  }
  return { ok: false, attempts: options.attempts, error };
}

/** `Retry-After` in seconds or as a date, in ms from now; null when absent or not either. */
export function retryAfterOf(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The POST the daemon sends with: Node's fetch, no redirects followed (a webhook that moves answers 3xx, which is a failure). */
export const fetchPost: Post = async (url, init) => {
  const response = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, signal: init.signal, redirect: 'manual' });
  // The body is not needed (and a hostile receiver's may be endless): dropped, which frees the connection.
  await response.body?.cancel().catch(() => undefined);
  return { status: response.status, retryAfterMs: retryAfterOf(response.headers.get('retry-after'), Date.now()) };
};
