import fs from 'node:fs';
import net from 'node:net';
import { TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { controlRequestSchema, MAX_CONTROL_LINE_BYTES, type ControlRequest, type ControlResponse } from '../contracts/control-protocol.js';

export type ControlHandler = (request: ControlRequest) => Promise<unknown>;

/** How long a connection may take to send its request line: one that sends nothing is dropped, not kept open. */
export const REQUEST_WAIT_MS = 10_000;
/** At close, how long a request being handled may still take to be answered before its connection is dropped. */
const CLOSE_GRACE_MS = 2_000;

/** A connection, and whether its request line has come (it is being handled, or answered). */
interface Connection {
  readonly socket: net.Socket;
  requested: boolean;
}

/**
 * The daemon's control socket: a Unix socket in run/ (folder 0700, socket 0600), one request
 * line and one response line per connection. Every request is parsed before it is handled.
 */
export class ControlServer {
  private constructor(
    private readonly server: net.Server,
    private readonly socketPath: string,
    private readonly connections: Set<Connection>,
  ) {}

  static async listen(socketPath: string, handle: ControlHandler, logger: Logger, requestWaitMs = REQUEST_WAIT_MS): Promise<ControlServer> {
    // A socket file left by a daemon that was killed would make listen() fail with EADDRINUSE.
    fs.rmSync(socketPath, { force: true });
    const connections = new Set<Connection>();
    const server = net.createServer((socket) => {
      const connection: Connection = { socket, requested: false };
      connections.add(connection);
      socket.once('close', () => connections.delete(connection));
      serve(connection, handle, logger, requestWaitMs);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(socketPath, 0o600);
    return new ControlServer(server, socketPath, connections);
  }

  /**
   * Stops accepting, drops the connections that have not sent a request (a client left open
   * would otherwise hold the daemon's exit forever), gives the ones being handled CLOSE_GRACE_MS
   * to be answered, then drops those too.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const { socket, requested } of this.connections) if (!requested) socket.destroy();
    const grace = setTimeout(() => {
      for (const { socket } of this.connections) socket.destroy();
    }, CLOSE_GRACE_MS);
    try {
      await closed;
    } finally {
      clearTimeout(grace);
    }
    fs.rmSync(this.socketPath, { force: true });
  }
}

function serve(connection: Connection, handle: ControlHandler, logger: Logger, requestWaitMs: number): void {
  const { socket } = connection;
  let buffer = '';
  let answered = false;
  const reply = (response: ControlResponse): void => {
    if (answered) return;
    answered = true;
    connection.requested = true;
    socket.end(`${JSON.stringify(response)}\n`);
  };
  socket.setEncoding('utf8');
  // Only until the request line is whole: a request being handled may take long, silently.
  socket.setTimeout(requestWaitMs, () => {
    if (!connection.requested) socket.destroy();
  });
  socket.on('error', (error) => logger.debug({ err: error }, 'control connection error'));
  socket.on('data', (chunk: string) => {
    // Whatever a client sends after its request (or after a refusal) is not kept.
    if (connection.requested) return;
    buffer += chunk;
    if (buffer.length > MAX_CONTROL_LINE_BYTES) {
      reply({ ok: false, error: { code: 'PROTOCOL', message: `request over ${MAX_CONTROL_LINE_BYTES} bytes` } });
      return;
    }
    const newline = buffer.indexOf('\n');
    if (newline === -1) return;
    connection.requested = true;
    socket.setTimeout(0);
    const rawRequest = buffer.slice(0, newline);
    buffer = '';
    let json: unknown;
    try {
      json = JSON.parse(rawRequest);
    } catch {
      reply({ ok: false, error: { code: 'PROTOCOL', message: 'request is not JSON' } });
      return;
    }
    const parsed = controlRequestSchema.safeParse(json);
    if (!parsed.success) {
      reply({
        ok: false,
        error: { code: 'INVALID_INPUT', message: parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ') },
      });
      return;
    }
    const request = parsed.data;
    // A client that gave up waiting (the daemon was stopped or busy past its timeout) has closed
    // its end, and told its person the command failed: its request, read only now, is not
    // carried out. Its close is read in the event loop's next poll, after the one that read the
    // request (libuv stops reading at a short read): hence two turns of the loop before looking.
    setImmediate(() =>
      setImmediate(() => {
        if (socket.readableEnded || socket.destroyed) {
          logger.warn({ op: request.op }, 'control request not carried out: its client gave up waiting before the daemon read it');
          socket.destroy();
          return;
        }
        carryOut(request, handle, reply, logger);
      }),
    );
  });
}

/** Handles a request and answers it: its result, or its error in one line. */
function carryOut(request: ControlRequest, handle: ControlHandler, reply: (response: ControlResponse) => void, logger: Logger): void {
  handle(request).then(
    (result) => reply({ ok: true, result: result ?? null }),
    (error: unknown) => {
      if (error instanceof TeamdError) reply({ ok: false, error: { code: error.code, message: error.message } });
      else {
        logger.error({ err: error, op: request.op }, 'control request failed');
        reply({ ok: false, error: { code: 'IO', message: error instanceof Error ? error.message : String(error) } });
      }
    },
  );
}
