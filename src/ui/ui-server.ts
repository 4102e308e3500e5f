import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isTeamdError, TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { Bell, TeamStore } from '../contracts/team-store.js';
import type { StatePaths } from '../paths.js';
import { MAX_UI_BODY_BYTES } from '../contracts/ui-protocol.js';
import { takeSnapshot, takeTeamSnapshot } from '../cli/watch/snapshot.js';
import { checkRequest, csrfValue, newUiToken, tokenCookie, type UiAccess } from './ui-guard.js';
import { UiFeed } from './ui-feed.js';
import { stateFrom, uiStateOf } from './ui-state.js';
import { otherHostsMembers } from '../cli/team-members.js';
import { UiBoardReader } from './ui-board-reader.js';
import { readTaskPage } from './ui-task.js';
import { readSchedule } from './ui-schedule.js';
import { FileLocker } from '../fs/file-lock.js';
import { UI_ACTIONS } from './ui-actions.js';
import type { PageAssets } from './page-assets.js';

/** The messages the chat shows when the page opens (the inboxes keep every one: teamd inbox). */
const CHAT_MESSAGES = 200;

export interface UiServerOptions {
  readonly paths: StatePaths;
  readonly store: TeamStore;
  readonly logger: Logger;
  readonly assets: PageAssets;
  /** Rings on every change the page shows (the caller's doorbell over the state folder, and the store's notifications). */
  readonly bell: Bell;
  /** 127.0.0.1 unless the settings name another interface, which needs a token of their own. */
  readonly host: string;
  /** 0: a free port. */
  readonly port: number;
  /** A token set in the settings; otherwise a new one for this server's life. */
  readonly token?: string | undefined;
  /** Host names it also answers for (a reverse proxy's), with their port. */
  readonly extraHosts?: readonly string[];
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Where a token of the person's own comes from: never an argument, which `ps` shows to every user. */
export const TOKEN_ENV = 'TEAMD_UI_TOKEN';
const MIN_TOKEN_CHARS = 32;

/** Headers of every answer: nothing is cached, framed, sniffed or loaded from elsewhere, and no URL (the token's) leaks in a Referer. */
const SAFE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** `teamd ui`: one page over the team, with the token's holder its only user (docs/dashboard.md). */
export class UiServer {
  private constructor(
    private readonly server: http.Server,
    private readonly feed: UiFeed,
    readonly access: UiAccess,
    private readonly host: string,
  ) {}

  /** The address to open, token included (as Jupyter prints it). */
  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.access.port}/?token=${encodeURIComponent(this.access.token)}`;
  }

  static async start(options: UiServerOptions): Promise<UiServer> {
    if (!LOOPBACK.has(options.host) && !options.token)
      throw new TeamdError('USAGE', `the dashboard listens on ${options.host}, beyond this machine, only with a token of its own: set ${TOKEN_ENV}`);
    if (options.token !== undefined && options.token.length < MIN_TOKEN_CHARS)
      throw new TeamdError('USAGE', `the dashboard's token must be at least ${MIN_TOKEN_CHARS} characters (e.g. openssl rand -base64 32)`);
    const { paths, store, logger } = options;
    const locker = new FileLocker({ logger });
    const reader = new UiBoardReader(store.board);
    const feed = new UiFeed({
      take: async (kind) => {
        const team = await takeTeamSnapshot(paths, store, CHAT_MESSAGES);
        const board = await reader.read(kind);
        // A shared store: every host's teammates, as teamd status shows them (none with files).
        const others = await otherHostsMembers(store, [], team.teamModel);
        return stateFrom(team, board.tasks, board.problems, paths, others.members);
      },
      bell: options.bell,
      logger,
    });
    let access: UiAccess | null = null;
    const server = http.createServer((request, response) => {
      if (access) void handle(access, request, response).catch((error: unknown) => fail(response, error, logger));
    });
    // A header or body that never ends holds a socket at most this long; the event stream is exempt (it has no request timeout once answered).
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new TeamdError(
            'IO',
            error.code === 'EADDRINUSE'
              ? `port ${options.port} on ${options.host} is taken: choose another (--port)`
              : `cannot listen on ${options.host}:${options.port}: ${error.message}`,
            { cause: error },
          ),
        ),
      );
      server.listen(options.port, options.host, resolve);
    });
    const port = (server.address() as AddressInfo).port;
    access = { token: options.token ?? newUiToken(), port, extraHosts: (options.extraHosts ?? []).map((host) => host.toLowerCase()) };
    const ui = new UiServer(server, feed, access, options.host);
    const handle = async (guard: UiAccess, request: IncomingMessage, response: ServerResponse): Promise<void> => {
      const url = new URL(request.url ?? '/', 'http://ui.invalid');
      if (request.method === 'GET' && url.pathname === '/app.js') return send(response, 200, 'text/javascript; charset=utf-8', options.assets.script);
      if (request.method === 'GET' && url.pathname === '/app.css') return send(response, 200, 'text/css; charset=utf-8', options.assets.style);
      const verdict = checkRequest(guard, request, url);
      if (!verdict.ok) {
        logger.warn({ status: verdict.status, path: url.pathname, method: request.method }, `dashboard request refused: ${verdict.reason}`);
        return url.pathname.startsWith('/api/')
          ? sendJson(response, verdict.status, { error: { code: 'REFUSED', message: verdict.reason } })
          : sendRefusal(response, verdict);
      }
      if (request.method === 'GET' && url.pathname === '/') {
        // The token leaves the address bar (and the history) at once: the cookie carries it from now on.
        if (verdict.tokenFromUrl) return void response.writeHead(303, { ...SAFE_HEADERS, location: '/', 'set-cookie': tokenCookie(guard) }).end();
        return send(response, 200, 'text/html; charset=utf-8', options.assets.html.replace('{{csrf}}', csrfValue(guard)));
      }
      if (request.method === 'GET' && url.pathname === '/api/events') return ui.feed.join(response);
      if (request.method === 'GET' && url.pathname === '/api/state') {
        const snapshot = await takeSnapshot(paths, store, CHAT_MESSAGES);
        return sendJson(response, 200, uiStateOf(snapshot, paths, (await otherHostsMembers(store, [], snapshot.teamModel)).members));
      }
      // Background and cron jobs: read when the page asks (the Team view), not at every change of the board.
      if (request.method === 'GET' && url.pathname === '/api/schedule') return sendJson(response, 200, readSchedule(paths, locker, new Date()));
      const task = /^\/api\/tasks\/([1-9][0-9]{0,9})$/.exec(url.pathname);
      if (request.method === 'GET' && task) return sendJson(response, 200, await readTaskPage(store.board, paths, Number(task[1])));
      const action = /^\/api\/([a-z]+)$/.exec(url.pathname)?.[1];
      if (request.method === 'POST' && action && Object.hasOwn(UI_ACTIONS, action)) {
        const body = await readJson(request);
        const said = await UI_ACTIONS[action]!({ paths, store }, body);
        // A merge changes a finished task, which the feed's reads of the live board do not see.
        const merged = (body as { task?: unknown }).task;
        if (action === 'merge' && typeof merged === 'number') reader.touch(merged);
        logger.info({ action }, `dashboard: ${said}`);
        options.bell.ring();
        return sendJson(response, 200, { ok: true, said });
      }
      return sendJson(response, 404, { error: { code: 'NOT_FOUND', message: `nothing at ${request.method} ${url.pathname}` } });
    };
    logger.info({ host: options.host, port }, 'dashboard listening');
    return ui;
  }

  async close(): Promise<void> {
    await this.feed.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...SAFE_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** A refused page says why and shows nothing of the team, not even its name. */
function sendRefusal(response: ServerResponse, verdict: { status: number; reason: string }): void {
  const text = verdict.reason.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  send(response, verdict.status, 'text/html; charset=utf-8', `<!doctype html><meta charset="utf-8"><title>teamd</title><p>teamd dashboard: ${text}.</p>\n`);
}

const STATUS_OF: Readonly<Record<string, number>> = { TASK_NOT_FOUND: 404, INVALID_TRANSITION: 409, UNKNOWN_RECIPIENT: 404, MESSAGE_TOO_LARGE: 413 };

function fail(response: ServerResponse, error: unknown, logger: Logger): void {
  if (response.headersSent) return void response.end();
  if (isTeamdError(error)) return sendJson(response, STATUS_OF[error.code] ?? 400, { error: { code: error.code, message: error.message } });
  logger.error({ err: error }, 'the dashboard failed to answer a request');
  sendJson(response, 500, { error: { code: 'INTERNAL', message: 'the dashboard could not answer; its log says why' } });
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_UI_BODY_BYTES) throw new TeamdError('MESSAGE_TOO_LARGE', `the request is over ${MAX_UI_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new TeamdError('INVALID_INPUT', 'the request body is not JSON');
  }
}
