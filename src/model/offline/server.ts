import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import type { Logger } from '../../log/logger.js';
import { TEAMMATE_HEADER } from '../../contracts/offline-model.js';
import { ANTHROPIC_VERSION } from '../../contracts/model.js';
import { servedModel } from '../model-catalog.js';
import { decideOffline } from './policy.js';
import { type OfflineBlock, type OfflineTurn } from './offline-types.js';
import { PromptCache } from './prompt-cache.js';
import { estimateTokens, findViolation, promptTokens, textAfterToolResults, type RawRequest } from './request-rules.js';
import { sendApiError, sendJson, sendJsonMessage, streamMessage, type OfflineMessage, type StreamShape } from './respond.js';
import type { OfflineScript, ScriptStep } from './script.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

const blockSchema = z.looseObject({ type: z.string() });
const requestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int(),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  tools: z.array(z.looseObject({})).optional(),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(blockSchema)]) })),
  stream: z.boolean().optional(),
});

export interface OfflineServerDeps {
  readonly script: OfflineScript;
  readonly logger: Logger;
  /** The context window it enforces, read per request (a setting the person may change). */
  readonly contextWindowTokens?: () => number;
  /** The key it accepts; by default a new random one per start. */
  readonly key?: string;
  readonly now?: () => Date;
  /** Hears every Messages request it answers, as sent (benchmarks count calls with it; tests compare consecutive prompts). */
  readonly onRequest?: (teammate: string, request: RawRequest) => void;
  /** Hears the system prompt and tool names of every request it decides on (tests look at what teammates sent). */
  readonly onDecide?: (seen: { teammate: string; system: string; tools: readonly string[] }) => void;
}

/**
 * The offline model as a strict stand-in for the Messages API on 127.0.0.1 (DESIGN §9):
 * POST /v1/messages (JSON or streamed), GET /v1/models/{id}; it refuses what the API refuses,
 * in the API's error shape, and misbehaves when a teammate's script says so.
 */
export class OfflineModelServer {
  private readonly caches = new Map<number, PromptCache>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    /** The API key this endpoint accepts: made per daemon, given only to its teammates (never to their commands). */
    readonly key: string,
    private readonly deps: OfflineServerDeps,
  ) {}

  static async listen(deps: OfflineServerDeps): Promise<OfflineModelServer> {
    let instance: OfflineModelServer | null = null;
    const server = http.createServer((req, res) => {
      instance?.handle(req, res).catch((error: unknown) => {
        // Whatever goes wrong with one request is that request's 500, never the daemon's end.
        deps.logger.error({ err: error }, 'offline model: request failed');
        if (!res.headersSent) sendApiError(res, 500, 'api_error', `the offline model failed: ${(error as Error).message}`);
        else res.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    instance = new OfflineModelServer(server, `http://127.0.0.1:${port}`, deps.key ?? `offline-${randomBytes(24).toString('hex')}`, deps);
    return instance;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Any local user can reach 127.0.0.1: only callers with this daemon's key are served.
    if (!sameKey(presentedKey(req), this.key))
      return sendApiError(res, 401, 'authentication_error', 'invalid x-api-key: the offline model serves only the teammates of the daemon that started it');
    const now = this.deps.now?.() ?? new Date();
    const modelPath = /^\/v1\/models\/([^/?]+)/.exec(req.url ?? '');
    if (req.method === 'GET' && modelPath) {
      const id = decodeURIComponent(modelPath[1]!);
      const info = servedModel(id, now);
      if (!info) return sendApiError(res, 404, 'not_found_error', `model: ${id}`);
      return sendJson(res, 200, { type: 'model', id: info.id, display_name: info.displayName, created_at: '2026-01-01T00:00:00Z' });
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages'))
      return sendApiError(res, 404, 'not_found_error', `the offline model serves POST /v1/messages and GET /v1/models/{id}, not ${req.method} ${req.url}`);
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return sendApiError(res, 400, 'invalid_request_error', `request body is not JSON: ${(error as Error).message}`);
    }
    const parsed = requestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return sendApiError(res, 400, 'invalid_request_error', `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid request'}`);
    }
    const request = parsed.data as RawRequest & { stream?: boolean };
    // As the API: a version it does not document is refused.
    const version = req.headers['anthropic-version'];
    if (version !== ANTHROPIC_VERSION)
      return sendApiError(
        res,
        400,
        'invalid_request_error',
        `anthropic-version: ${JSON.stringify(version ?? null)} is not a version of the API (use ${ANTHROPIC_VERSION})`,
      );
    const teammate = String(req.headers[TEAMMATE_HEADER] ?? 'unknown');
    const logger = this.deps.logger.child({ teammate });
    const violation = findViolation(request, { model: servedModel(request.model, now), contextWindowTokens: this.deps.contextWindowTokens?.() ?? 200_000 });
    if (violation) {
      logger.warn({ status: violation.status, error: violation.message }, 'offline model: refused a request the API would refuse');
      return sendApiError(res, violation.status, violation.type, violation.message);
    }
    this.deps.onRequest?.(teammate, request);
    const step = this.usableStep(this.deps.script.next(teammate), request, teammate);
    if (step) logger.info({ step }, 'offline model: scripted response');
    if (step && 'drop' in step) return void req.socket.destroy();
    if (step && 'status' in step) return sendScriptedError(res, step, request);
    const { turn, shape } = step ? scriptedTurn(step) : { turn: this.decide(request, teammate), shape: {} };
    const message = this.bill(request, turn);
    if (request.stream) return streamMessage(res, message, shape);
    if (shape.stall) return; // a stall without streaming: the headers never come
    // Unstreamed, the API reports the same failure as the HTTP error it is.
    if (shape.streamError) return sendScriptedError(res, { status: shape.streamError === 'overloaded_error' ? 529 : 500 }, request);
    if (shape.cut) return void req.socket.destroy(); // unstreamed, the answer is cut before it comes
    return sendJsonMessage(res, message);
  }

  /** A scripted tool call must name a tool the request offers; one that does not is reported (naming the file) and skipped. */
  private usableStep(step: ScriptStep | null, request: RawRequest, teammate: string): ScriptStep | null {
    const calls = !step
      ? []
      : 'toolUse' in step
        ? [step.toolUse]
        : 'truncatedToolUse' in step
          ? [step.truncatedToolUse]
          : 'toolUses' in step
            ? step.toolUses
            : [];
    const offered = (request.tools ?? []).map((t) => t.name);
    const unknown = calls.find((call) => !offered.includes(call.name));
    if (!unknown) return step;
    this.deps.script.report(`a step for ${teammate} calls the unknown tool "${unknown.name}" (offered: ${offered.join(', ') || 'none'}); the step is skipped`);
    return null;
  }

  private decide(request: RawRequest, teammate: string): OfflineTurn {
    // What real models do with text after tool results in one user turn: an empty answer.
    if (textAfterToolResults(request)) return { content: [], stop_reason: 'end_turn' };
    const system =
      typeof request.system === 'string' ? request.system : (request.system ?? []).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
    const tools = (request.tools ?? []).map((t) => (typeof t.name === 'string' ? t.name : ''));
    this.deps.onDecide?.({ teammate, system, tools });
    return decideOffline({ teammate, system, tools, messages: request.messages });
  }

  /** Usage as the API bills it, computed on the request's own bytes (prompt-cache.ts). */
  private bill(request: RawRequest, turn: OfflineTurn): OfflineMessage {
    const min = servedModel(request.model, this.deps.now?.() ?? new Date())?.minCacheableTokens ?? 1024;
    let cache = this.caches.get(min);
    if (!cache) this.caches.set(min, (cache = new PromptCache({ minCacheableTokens: min })));
    const billed = cache.bill(request);
    return {
      id: `msg_offline_${Date.now().toString(36)}`,
      model: request.model,
      content: turn.content,
      stop_reason: turn.stop_reason,
      usage: { ...billed, input_tokens: Math.max(1, billed.input_tokens), output_tokens: estimateTokens(JSON.stringify(turn.content)) },
    };
  }
}

let sequence = 0;

/** A scripted answer (not an error): its content, stop reason and how the stream is cut. */
function scriptedTurn(step: Exclude<ScriptStep, { status: number } | { drop: true }>): { turn: OfflineTurn; shape: StreamShape } {
  const id = () => `toolu_scripted_${Date.now().toString(36)}_${++sequence}`;
  if ('stall' in step) return { turn: { content: [], stop_reason: 'end_turn' }, shape: { stall: true } };
  if ('streamError' in step || 'cutMidAnswer' in step) {
    const content: OfflineBlock[] = step.text === undefined ? [] : [{ type: 'text', text: step.text }];
    const shape: StreamShape = 'streamError' in step ? { streamError: step.streamError } : { cut: step.cutMidAnswer };
    return { turn: { content, stop_reason: 'end_turn' }, shape };
  }
  if ('truncatedToolUse' in step) {
    const content: OfflineBlock[] = [{ type: 'tool_use', id: id(), name: step.truncatedToolUse.name, input: step.truncatedToolUse.input }];
    return { turn: { content, stop_reason: 'max_tokens' }, shape: { truncateLastToolUse: true } };
  }
  if ('toolUses' in step) {
    const content: OfflineBlock[] = step.toolUses.map((call) => ({ type: 'tool_use' as const, id: id(), ...call }));
    return { turn: { content, stop_reason: 'tool_use' }, shape: {} };
  }
  if ('toolUse' in step) {
    const content: OfflineBlock[] = [...(step.text ? [{ type: 'text' as const, text: step.text }] : []), { type: 'tool_use', id: id(), ...step.toolUse }];
    return { turn: { content, stop_reason: 'tool_use' }, shape: {} };
  }
  const content: OfflineBlock[] = step.text === undefined ? [] : [{ type: 'text', text: step.text }];
  return { turn: { content, stop_reason: step.stopReason }, shape: {} };
}

function sendScriptedError(res: http.ServerResponse, step: Extract<ScriptStep, { status: number }>, request: RawRequest): void {
  switch (step.status) {
    case 429:
      return sendApiError(
        res,
        429,
        'rate_limit_error',
        'scripted rate limit: number of requests has exceeded your per-minute rate limit',
        step.retryAfterSeconds === undefined ? { 'retry-after-ms': '5' } : { 'retry-after': String(step.retryAfterSeconds) },
      );
    case 529:
      return sendApiError(res, 529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '5' });
    case 500:
      return sendApiError(res, 500, 'api_error', 'scripted internal server error', { 'retry-after-ms': '5' });
    case 401:
      return sendApiError(res, 401, 'authentication_error', 'invalid x-api-key');
    case 403:
      return sendApiError(res, 403, 'permission_error', 'Your API key does not have permission to use the specified resource.');
    case 404:
      return sendApiError(res, 404, 'not_found_error', `model: ${request.model}`);
    case 400:
      return sendApiError(res, 400, 'invalid_request_error', `prompt is too long: ${promptTokens(request) + 200_000} tokens > 200000 maximum`);
    case 413:
      return sendApiError(res, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
  }
}

/** The SDK sends the key as x-api-key or as a bearer token, depending on its version and the key's shape. */
function presentedKey(req: http.IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

function sameKey(given: string | string[] | undefined, key: string): boolean {
  if (typeof given !== 'string' || given.length !== key.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(key));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
