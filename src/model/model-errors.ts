import type { BaseAnthropic } from '@anthropic-ai/sdk/client';

export type ModelErrorKind =
  | 'prompt_too_long'
  /** 413: the request's bytes are over the API's limit (large tool results): compacted and tried again like a prompt too long. */
  | 'request_too_large'
  | 'rate_limited'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'stalled'
  | 'auth'
  | 'permission'
  | 'model_not_found'
  | 'bad_request'
  | 'aborted'
  | 'other';

/** What a teammate does about a failed call: retry later, stop taking work, compact, stop quietly, or fail the task. */
export type ModelFailureClass = 'transient' | 'fatal' | 'prompt_too_long' | 'aborted' | 'task';

/** A failed model call, classified by the SDK's error classes (never by message text, except the API's "prompt is too long"). */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  /** An error event inside an answer that had begun (HTTP 200): the SDK does not retry these itself. */
  readonly midAnswer: boolean;
  /** How long the API asked to be left alone (its retry-after header on the last answer), when it said. */
  readonly retryAfterMs: number | undefined;
  /** "prompt is too long: N tokens > M maximum": the prompt's size and the window, as the API counted them. */
  readonly stated: { readonly promptTokens: number; readonly maxTokens: number } | undefined;
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    options: { cause?: unknown; midAnswer?: boolean; retryAfterMs?: number | undefined } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.midAnswer = options.midAnswer ?? false;
    this.retryAfterMs = options.retryAfterMs;
    const sizes = /prompt is too long: (\d+) tokens > (\d+) maximum/i.exec(message);
    this.stated = sizes ? { promptTokens: Number(sizes[1]), maxTokens: Number(sizes[2]) } : undefined;
  }
}

export function failureClass(error: unknown): ModelFailureClass {
  if (!(error instanceof ModelError)) return 'task';
  switch (error.kind) {
    case 'rate_limited':
    case 'overloaded':
    case 'server':
    case 'connection':
    case 'stalled':
      return 'transient';
    case 'auth':
    case 'permission':
    case 'model_not_found':
      return 'fatal';
    case 'prompt_too_long':
    case 'request_too_large':
      return 'prompt_too_long';
    case 'aborted':
      return 'aborted';
    case 'bad_request':
    case 'other':
      return 'task';
  }
}

/** The SDK's client class: its statics are the SDK's error classes. */
type SdkClass = typeof BaseAnthropic;

/**
 * Turns what the SDK threw into a ModelError with a message that says what to do. `answerBegan`:
 * the API had answered 2xx, so a failure that is not the API's own error is the answer cut off
 * (a connection reset, a stream ended before message_stop), which the SDK reports as a bare
 * AnthropicError with only a message.
 */
export function classifySdkError(A: SdkClass, error: unknown, model: string, context: { answerBegan?: boolean; now?: number } = {}): ModelError {
  const now = context.now ?? Date.now();
  // The API's own words when it sent an error body; the SDK's message repeats the whole body.
  const apiMessage = error instanceof A.APIError ? (error as { apiMessage?: string | null }).apiMessage : null;
  const message = apiMessage ?? (error instanceof Error ? error.message : String(error));
  const as = (kind: ModelErrorKind, text: string, more: { midAnswer?: boolean; retryAfterMs?: number | undefined } = {}) =>
    new ModelError(kind, text, { cause: error, ...more });
  if (error instanceof A.APIUserAbortError) return as('aborted', 'the model call was cancelled');
  if (error instanceof A.BadRequestError) {
    // The API says "prompt is too long" only in its message: the one text match we allow.
    if (/prompt is too long/i.test(message)) return as('prompt_too_long', message);
    return as('bad_request', `the model API refused the request (400: ${message})`);
  }
  if (error instanceof A.AuthenticationError)
    return as('auth', `the API key was refused (401: ${message}); check ANTHROPIC_API_KEY, then teamd spawn the teammate again`);
  if (error instanceof A.PermissionDeniedError) return as('permission', `the API key may not use ${model} (403: ${message})`);
  if (error instanceof A.PaymentRequiredError)
    return as('permission', `the API account cannot pay for calls (402: ${message}); check its billing, then teamd spawn the teammate again`);
  // Retried by the SDK like a 429 or a 5xx, and as passing.
  if (error instanceof A.RequestTimeoutError || error instanceof A.ConflictError)
    return as('server', `the model API failed after retries (${error.status}: ${message})`);
  if (error instanceof A.NotFoundError) {
    // A 404 without the API's error body is a wrong address, not an unknown model.
    if (error.type !== 'not_found_error')
      return as('model_not_found', `the model API's address answered 404 without the API's error (${message}); check ANTHROPIC_BASE_URL`);
    return as('model_not_found', `unknown model ${model} (404: ${message}); teamd spawn it again with --model and a current model id`);
  }
  if (error instanceof A.RateLimitError)
    return as('rate_limited', `rate limited by the model API after retries (429: ${message})`, { retryAfterMs: retryAfterMs(error.headers, now) });
  if (error instanceof A.InternalServerError) {
    const kind = error.status === 529 ? 'overloaded' : 'server';
    return as(kind, `the model API failed after retries (${error.status}: ${message})`, { retryAfterMs: retryAfterMs(error.headers, now) });
  }
  if (error instanceof A.APIConnectionError) return as('connection', `cannot reach the model API (${message})`);
  if (error instanceof A.APIError) {
    // An error event in the middle of a stream has no status, only the error's type.
    const type = (error as { type?: string | null }).type;
    if (error.status === undefined && type === 'overloaded_error')
      return as('overloaded', `the model API was overloaded mid-answer (${message})`, { midAnswer: true });
    if (error.status === undefined && (type === 'api_error' || type === 'rate_limit_error'))
      return as('server', `the model API failed mid-answer (${message})`, { midAnswer: true });
    if (error.status === 413 || type === 'request_too_large') return as('request_too_large', `the request is too large for the model API (413: ${message})`);
    if (type === 'overloaded_error') return as('overloaded', `the model API was overloaded (${message})`);
    if (type === 'api_error' || type === 'rate_limit_error') return as('server', `the model API failed (${message})`);
    return as('other', `model API error ${error.status ?? ''}: ${message}`);
  }
  if (context.answerBegan && error instanceof A.AnthropicError) return as('connection', `the model API's answer was cut off (${message})`, { midAnswer: true });
  return as('other', message);
}

/** Past this, a retry-after is not believed (a clock gone wrong, a date years ahead). */
const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * The wait an answer's headers ask for, as the SDK reads them for its own retries:
 * `retry-after-ms` (milliseconds), else `retry-after` in seconds or as an HTTP date.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: number): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  const raw = headers?.get('retry-after') ?? null;
  const seconds = raw === null ? Number.NaN : Number(raw.trim());
  const wait = Number.isFinite(ms) ? ms : Number.isFinite(seconds) ? seconds * 1_000 : raw === null ? Number.NaN : Date.parse(raw) - now;
  return Number.isFinite(wait) && wait > 0 && wait <= MAX_RETRY_AFTER_MS ? Math.ceil(wait) : undefined;
}

export function isPromptTooLong(error: unknown): boolean {
  return error instanceof ModelError && error.kind === 'prompt_too_long';
}

export function describeModelError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
