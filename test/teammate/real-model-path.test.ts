import fs from 'node:fs';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { apiStandIn } from '../helpers/api-stand-in.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const gateways: http.Server[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => new Promise((resolve) => g.close(resolve))));
});

/** A gateway in front of the API that passes POST /v1/messages on and answers anything else with a bare 404, as many proxies do. */
async function messagesOnlyGateway(api: string): Promise<string> {
  const target = new URL(api);
  const gateway = http.createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  gateways.push(gateway);
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(gateway.address() as { port: number }).port}`;
}

describe('a real model id through ANTHROPIC_BASE_URL (the stand-in as the API)', () => {
  it('teamd spawn refuses an unknown model id (exit 2) before any work, and accepts a current one', async () => {
    const { dir, board, env } = await apiStandIn();
    await board.add({ subject: 'x', description: '```sh\necho hi\n```' });
    await startDaemon(dir, { env });
    const refused = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-9-9', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^teamd: unknown model "claude-sonnet-9-9": the API does not serve it; use a current model id \(such as claude-sonnet-5-5\)/,
    );
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(board.get(1).status).toBe('pending');
    const accepted = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir]);
    expect(accepted.code, accepted.stderr).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the task done by the real-model path');
  });

  it('behind a gateway without the models route (a bare 404), teamd spawn goes ahead and the teammate works', async () => {
    const { dir, board, env } = await apiStandIn();
    await board.add({ subject: 'x', description: '```sh\necho hi\n```' });
    await startDaemon(dir, { env: { ...env, ANTHROPIC_BASE_URL: await messagesOnlyGateway(env.ANTHROPIC_BASE_URL) } });
    const accepted = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir]);
    expect(accepted.code, accepted.stderr).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the task done through the gateway');
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).toContain('the API has no models route');
  });

  it('teamd spawn refuses when the API refuses the key', async () => {
    const { dir, env } = await apiStandIn();
    await startDaemon(dir, { env: { ...env, ANTHROPIC_API_KEY: 'sk-wrong-key' } });
    const refused = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/the API key was refused/);
  });

  it('a deprecated model warns once per teammate in its own log, not per call, and the SDK retries are logged at warn', async () => {
    const { dir, board, env } = await apiStandIn({ alice: [{ status: 529 }] });
    for (const n of [1, 2, 3]) await board.add({ subject: `t${n}`, description: `\`\`\`sh\necho ${n}\n\`\`\`` });
    await startDaemon(dir, { env });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-4-5', '--dir', dir])).code).toBe(0);
    await waitFor(() => [1, 2, 3].every((id) => board.get(id).status === 'completed'), 'the three tasks');
    const log = fs.readFileSync(statePaths(dir).logFile('alice'), 'utf8').split('\n').filter(Boolean);
    expect(log.filter((line) => line.includes("The model 'claude-sonnet-4-5' is deprecated"))).toHaveLength(1);
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).not.toContain('deprecated');
    const retries = log.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((l) => /retrying/.test(l.msg));
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((l) => l.level === 40)).toBe(true);
  });
});
