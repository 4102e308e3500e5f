import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlServer } from '../../src/daemon/control-server.js';
import { silentLogger, type Logger } from '../../src/log/silent-logger.js';
import { waitFor } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function connect(socketPath: string): Promise<{ socket: net.Socket; received: () => string; closed: Promise<unknown> }> {
  const socket = net.createConnection(socketPath);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  return { socket, received: () => text, closed };
}

describe('ControlServer', () => {
  it('drops a connection that sends no whole request line in time, and still answers the next', async () => {
    const socketPath = path.join(makeTempDir(), 'daemon.sock');
    const server = await ControlServer.listen(socketPath, () => Promise.resolve({ pong: true }), silentLogger, 200);
    const silent = await connect(socketPath);
    silent.socket.write('{"op":');
    await silent.closed;
    expect(silent.received()).toBe('');
    const asking = await connect(socketPath);
    asking.socket.write('{"op":"ping"}\n');
    await asking.closed;
    expect(JSON.parse(asking.received())).toEqual({ ok: true, result: { pong: true } });
    await server.close();
  });

  it('a request being handled is not cut by the wait for a request line; close answers it, then drops what is left', async () => {
    const socketPath = path.join(makeTempDir(), 'daemon.sock');
    let finish: (value: unknown) => void = () => {};
    const server = await ControlServer.listen(socketPath, () => new Promise((resolve) => (finish = resolve)), silentLogger, 100);
    const slow = await connect(socketPath);
    slow.socket.write('{"op":"ping"}\n');
    const clock = await connect(socketPath);
    await clock.closed; // a whole request wait has passed since the ping was sent
    expect(slow.socket.destroyed).toBe(false);
    const idle = await connect(socketPath);
    const closing = server.close();
    await idle.closed; // dropped at once: it never asked
    finish({ late: true });
    await slow.closed;
    expect(JSON.parse(slow.received())).toEqual({ ok: true, result: { late: true } });
    await closing;
  });

  it('close does not wait forever on a request that is never answered', async () => {
    const socketPath = path.join(makeTempDir(), 'daemon.sock');
    let handling: () => void = () => {};
    const handled = new Promise<void>((resolve) => (handling = resolve));
    const server = await ControlServer.listen(
      socketPath,
      () => {
        handling();
        return new Promise(() => {});
      },
      silentLogger,
    );
    const stuck = await connect(socketPath);
    stuck.socket.write('{"op":"ping"}\n');
    await handled;
    await server.close();
    await stuck.closed;
    expect(stuck.received()).toBe('');
  });

  it('a request whose client gave up waiting before the daemon read it is not carried out; the next one is', async () => {
    const socketPath = path.join(makeTempDir(), 'daemon.sock');
    const handled: unknown[] = [];
    const warnings: unknown[] = [];
    const logger: Logger = { ...silentLogger, warn: (...args: unknown[]) => void warnings.push(args), child: () => logger };
    const server = await ControlServer.listen(
      socketPath,
      (request) => {
        handled.push(request);
        return Promise.resolve({ done: true });
      },
      logger,
    );
    // As a client that timed out while the daemon was stopped: its request and its close are
    // both waiting when the daemon reads.
    const gaveUp = await connect(socketPath);
    gaveUp.socket.write('{"op":"stop"}\n');
    gaveUp.socket.destroy();
    await waitFor(() => warnings.length > 0 || handled.length > 0 || null, 'the request read');
    expect(handled).toEqual([]);
    expect(warnings).toEqual([[{ op: 'stop' }, 'control request not carried out: its client gave up waiting before the daemon read it']]);
    const asking = await connect(socketPath);
    asking.socket.write('{"op":"ping"}\n');
    await asking.closed;
    expect(JSON.parse(asking.received())).toEqual({ ok: true, result: { done: true } });
    expect(handled).toEqual([{ op: 'ping' }]);
    await server.close();
  });
});
