import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Logger } from '../../logger.js';
import { decideOffline, type OfflineBlock, type OfflineRequest } from './policy.js';
import type { OfflineScript, ScriptStep } from './script.js';

export const TEAMMATE_HEADER = 'x-teamd-teammate';
const MAX_BODY_BYTES = 32 * 1024 * 1024;

const requestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number(),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) })),
  stream: z.boolean().optional(),
});

/**
 * The offline model as an Anthropic-compatible Messages endpoint on 127.0.0.1, so teammates
 * use the real SDK code path without a network: POST /v1/messages, JSON in and out, errors
 * in the API's shape (with retry-after-ms, which the SDK honours).
 */
export class OfflineModelServer {
  private readonly cacheWarm = new Set<string>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    /** The API key this endpoint accepts: made per daemon, given only to its teammates (never to their commands). */
    readonly key: string,
  ) {}

  static async listen(deps: { script: OfflineScript; logger: Logger }): Promise<OfflineModelServer> {
    let instance: OfflineModelServer | null = null;
    const server = http.createServer((req, res) => {
      instance?.handle(req, res, deps).catch((error: unknown) => {
        // Whatever goes wrong with one request is that request's 500, never the daemon's end.
        deps.logger.error({ err: error }, 'offline model: request failed');
        if (!res.headersSent) sendError(res, 500, 'api_error', `the offline model failed: ${(error as Error).message}`);
        else res.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    instance = new OfflineModelServer(server, `http://127.0.0.1:${port}`, `offline-${randomBytes(24).toString('hex')}`);
    return instance;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, deps: { script: OfflineScript; logger: Logger }): Promise<void> {
    // Any local user can reach 127.0.0.1: only callers with this daemon's key are served.
    if (!sameKey(presentedKey(req), this.key))
      return sendError(res, 401, 'authentication_error', 'invalid API key: the offline model serves only the teammates of the daemon that started it');
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages'))
      return sendError(res, 404, 'not_found_error', `the offline model serves POST /v1/messages, not ${req.method} ${req.url}`);
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return sendError(res, 400, 'invalid_request_error', `request body is not JSON: ${(error as Error).message}`);
    }
    const parsed = requestSchema.safeParse(body);
    if (!parsed.success) return sendError(res, 400, 'invalid_request_error', parsed.error.message);
    if (parsed.data.stream) return sendError(res, 400, 'invalid_request_error', 'the offline model does not stream; call messages.create without stream');
    const teammate = String(req.headers[TEAMMATE_HEADER] ?? 'unknown');
    const system = typeof parsed.data.system === 'string' ? parsed.data.system : (parsed.data.system ?? []).map((b) => b.text ?? '').join('\n');
    const request: OfflineRequest = { teammate, system, messages: parsed.data.messages };
    const step = deps.script.next(teammate);
    if (step) deps.logger.info({ teammate, step }, 'offline model: scripted response');
    if (step && 'status' in step) return sendScriptedError(res, step);
    const turn = step ? { content: [{ type: 'text' as const, text: step.text }], stop_reason: step.stopReason } : decideOffline(request);
    const prefixTokens = estimateTokens(system) + estimateTokens(JSON.stringify(parsed.data.tools ?? []));
    const warm = this.cacheWarm.has(teammate);
    this.cacheWarm.add(teammate);
    send(res, 200, {
      id: `msg_offline_${Date.now().toString(36)}`,
      type: 'message',
      role: 'assistant',
      model: parsed.data.model,
      content: turn.content satisfies OfflineBlock[],
      stop_reason: turn.stop_reason,
      stop_sequence: null,
      usage: {
        input_tokens: estimateTokens(JSON.stringify(parsed.data.messages)),
        output_tokens: estimateTokens(JSON.stringify(turn.content)),
        cache_creation_input_tokens: warm ? 0 : prefixTokens,
        cache_read_input_tokens: warm ? prefixTokens : 0,
      },
    });
  }
}

function sendScriptedError(res: http.ServerResponse, step: Extract<ScriptStep, { status: number }>): void {
  switch (step.status) {
    case 429:
      return sendError(res, 429, 'rate_limit_error', 'scripted rate limit', true);
    case 529:
      return sendError(res, 529, 'overloaded_error', 'scripted overload', true);
    case 500:
      return sendError(res, 500, 'api_error', 'scripted internal error', false);
    case 400:
      return sendError(res, 400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum', false);
  }
}

function sendError(res: http.ServerResponse, status: number, type: string, message: string, retry = false): void {
  send(res, status, { type: 'error', error: { type, message } }, retry ? { 'retry-after-ms': '5', 'x-should-retry': 'true' } : { 'x-should-retry': 'false' });
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

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_offline_${Date.now()}`,
    ...headers,
  });
  res.end(text);
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

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
