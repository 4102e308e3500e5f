import fs from 'node:fs';
import net from 'node:net';
import { TeamdError } from '../errors.js';
import type { Logger } from '../logger.js';
import { controlRequestSchema, MAX_CONTROL_LINE_BYTES, type ControlRequest, type ControlResponse } from './control-protocol.js';

export type ControlHandler = (request: ControlRequest) => Promise<unknown>;

/**
 * The daemon's control socket: a Unix socket in run/ (folder 0700, socket 0600), one request
 * line and one response line per connection. Every request is parsed before it is handled.
 */
export class ControlServer {
  private constructor(
    private readonly server: net.Server,
    private readonly socketPath: string,
  ) {}

  static async listen(socketPath: string, handle: ControlHandler, logger: Logger): Promise<ControlServer> {
    // A socket file left by a daemon that was killed would make listen() fail with EADDRINUSE.
    fs.rmSync(socketPath, { force: true });
    const server = net.createServer((socket) => serve(socket, handle, logger));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(socketPath, 0o600);
    return new ControlServer(server, socketPath);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.socketPath, { force: true });
  }
}

function serve(socket: net.Socket, handle: ControlHandler, logger: Logger): void {
  let buffer = '';
  let answered = false;
  const reply = (response: ControlResponse): void => {
    if (answered) return;
    answered = true;
    socket.end(`${JSON.stringify(response)}\n`);
  };
  socket.setEncoding('utf8');
  socket.on('error', (error) => logger.debug({ err: error }, 'control connection error'));
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_CONTROL_LINE_BYTES) {
      reply({ ok: false, error: { code: 'PROTOCOL', message: `request over ${MAX_CONTROL_LINE_BYTES} bytes` } });
      return;
    }
    const newline = buffer.indexOf('\n');
    if (newline === -1 || answered) return;
    const rawRequest = buffer.slice(0, newline);
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
    handle(parsed.data).then(
      (result) => reply({ ok: true, result: result ?? null }),
      (error: unknown) => {
        if (error instanceof TeamdError) reply({ ok: false, error: { code: error.code, message: error.message } });
        else {
          logger.error({ err: error, op: parsed.data.op }, 'control request failed');
          reply({ ok: false, error: { code: 'IO', message: error instanceof Error ? error.message : String(error) } });
        }
      },
    );
  });
}
