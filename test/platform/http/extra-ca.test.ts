import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { DEFERRED_CA_ENV, deferExtraCa, takeDeferredCa } from '../../../src/platform/http/extra-ca.js';
import { createHttpClient, type HttpClient } from '../../../src/platform/http/http-fetch.js';
import { OfflineModelServer } from '../../../src/model/offline/server.js';
import { OfflineScript } from '../../../src/model/offline/script.js';
import { openBoard } from '../../helpers/board.js';
import { startDaemon } from '../../helpers/daemon.js';
import { runTeamd } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { makeTestCa, tlsProxy } from '../../helpers/tls-certs.js';
import { waitFor } from '../../helpers/wait.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function listening(server: net.Server): Promise<number> {
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        (server as https.Server).closeAllConnections?.();
        server.close(() => resolve());
      }),
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function client(options: Parameters<typeof createHttpClient>[0]): HttpClient {
  const made = createHttpClient(options);
  closers.push(() => made.close());
  return made;
}

describe('NODE_EXTRA_CA_CERTS, loaded by a teammate at its first TLS connection instead of at start', () => {
  it('the environment: moved aside for the fork, put back in the teammate for what it starts', () => {
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/etc/ca.pem', PATH: '/bin' };
    deferExtraCa(env);
    expect(env).toEqual({ [DEFERRED_CA_ENV]: '/etc/ca.pem', PATH: '/bin' });
    expect(takeDeferredCa(env)).toBe('/etc/ca.pem');
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/ca.pem', PATH: '/bin' });
    const none: NodeJS.ProcessEnv = { PATH: '/bin' };
    deferExtraCa(none);
    expect(takeDeferredCa(none)).toBeNull();
    expect(none).toEqual({ PATH: '/bin' });
  });

  it('a server signed by that CA is refused without the file and trusted with it; an unreadable file warns and keeps Node’s roots', async () => {
    const ca = makeTestCa();
    const port = await listening(https.createServer({ key: ca.key, cert: ca.cert }, (_request, response) => response.end('secure hello')));
    const url = `https://127.0.0.1:${port}/`;
    const refused = await client({})
      .fetch(url)
      .catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error & { cause: NodeJS.ErrnoException }).cause.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER_CERT/);
    const trusted = await client({ extraCaFile: ca.caFile }).fetch(url);
    expect(await trusted.text()).toBe('secure hello');
    const warnings: string[] = [];
    const missing = path.join(makeTempDir(), 'missing.pem');
    const withMissing = await client({ extraCaFile: missing, warn: (message) => warnings.push(message) })
      .fetch(url)
      .catch((error: unknown) => error as Error);
    expect(withMissing).toBeInstanceOf(TypeError);
    expect(warnings).toEqual([expect.stringContaining(`ignoring the extra CA certificates in ${missing}`)]);
  });

  it('a teammate calls a model API behind that CA (ANTHROPIC_BASE_URL over https), and its commands still see NODE_EXTRA_CA_CERTS', async () => {
    const ca = makeTestCa();
    const script = path.join(makeTempDir(), 'api-script.json');
    fs.writeFileSync(script, '{}');
    const api = await OfflineModelServer.listen({ script: new OfflineScript(script), logger: createLogger(), key: 'sk-test-tls-key' });
    closers.push(() => api.close());
    const apiPort = Number(new URL(api.url).port);
    // TLS in front of the stand-in API, with the test CA's certificate.
    const proxy = await tlsProxy(ca, apiPort);
    closers.push(() => proxy.close());
    const port = proxy.port;
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    const { board } = openBoard(dir);
    await board.add({ subject: 'show the CA file', description: '```sh\necho "ca=$NODE_EXTRA_CA_CERTS"\n```' });
    const env = { ANTHROPIC_API_KEY: api.key, ANTHROPIC_BASE_URL: `https://127.0.0.1:${port}`, NODE_EXTRA_CA_CERTS: ca.caFile };
    await startDaemon(dir, { env });
    const spawned = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir], { env });
    expect(spawned.code, spawned.stderr).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the task done through TLS');
    expect(board.get(1).result).toContain(`ca=${ca.caFile}`);
    // Node started the teammate without the variable: it did not load the file at start.
    const status = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { members: { name: string; pid: number }[] };
    const pid = status.members.find((m) => m.name === 'alice')!.pid;
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`${DEFERRED_CA_ENV}=${ca.caFile}`);
    expect(environ.some((entry) => entry.startsWith('NODE_EXTRA_CA_CERTS='))).toBe(false);
  });
});
