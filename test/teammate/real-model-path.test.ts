import fs from 'node:fs';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { KNOWN_MODELS, servedModel } from '../../src/model/model-catalog.js';
import { apiStandIn } from '../helpers/api-stand-in.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const deprecatedModel = KNOWN_MODELS.filter((m) => m.retiresOn !== undefined && servedModel(m.id, new Date()) !== null).sort((a, b) =>
  b.retiresOn!.localeCompare(a.retiresOn!),
)[0]?.id;
if (deprecatedModel === undefined)
  process.stderr.write(
    'real-model-path: the deprecation warning test is SKIPPED: every model the pinned SDK deprecates is retired; upgrade @anthropic-ai/sdk\n',
  );

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

  // A model the pinned SDK deprecates that is still served today, the one retiring last: a fixed id
  // (claude-sonnet-4-5) was refused at spawn from its retirement day on, and failed the suite.
  it.skipIf(deprecatedModel === undefined)(
    'a deprecated model warns once per teammate in its own log, not per call, and the SDK retries are logged at warn',
    async () => {
      const deprecated = deprecatedModel!;
      const { dir, board, env } = await apiStandIn({ alice: [{ status: 529 }] });
      for (const n of [1, 2, 3]) await board.add({ subject: `t${n}`, description: `\`\`\`sh\necho ${n}\n\`\`\`` });
      await startDaemon(dir, { env });
      expect((await runTeamd(['spawn', 'alice', 'coder', '--model', deprecated, '--dir', dir])).code).toBe(0);
      await waitFor(() => [1, 2, 3].every((id) => board.get(id).status === 'completed'), 'the three tasks');
      const log = fs.readFileSync(statePaths(dir).logFile('alice'), 'utf8').split('\n').filter(Boolean);
      expect(log.filter((line) => line.includes(`The model '${deprecated}' is deprecated`))).toHaveLength(1);
      expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).not.toContain('deprecated');
      const retries = log.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((l) => /retrying/.test(l.msg));
      expect(retries.length).toBeGreaterThan(0);
      expect(retries.every((l) => l.level === 40)).toBe(true);
    },
  );

  it('housekeeping (summaries, one-shot helpers) uses the housekeeping model of the role, the work its own; an unknown one is refused at spawn (issue 47)', async () => {
    const { dir, board, env, requests } = await apiStandIn();
    const helper = { name: 'task', input: { description: 'look around', prompt: 'Say what the folder holds.' } };
    const steps = [helper, ...Array.from({ length: 30 }, (_, i) => ({ name: 'bash', input: { command: `echo ${i} >> progress.txt; seq 1 300` } }))];
    await board.add({ subject: 'long', description: `\`\`\`teamd-calls\n${JSON.stringify(steps)}\n\`\`\`` });
    await startDaemon(dir, {
      env,
      settings: { compactThresholdTokens: 5_000, housekeepingModel: 'claude-sonnet-5', housekeepingModelByRole: { coder: 'claude-haiku-5-5' } },
    });
    // Checked at spawn like the teammate's own model.
    const wrongRole = { ...JSON.parse(fs.readFileSync(statePaths(dir).config, 'utf8')) };
    wrongRole.settings.housekeepingModelByRole = { coder: 'claude-haiku-9-9' };
    fs.writeFileSync(statePaths(dir).config, JSON.stringify(wrongRole));
    const refused = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^teamd: the housekeeping model \(settings housekeepingModel or housekeepingModelByRole\): unknown model "claude-haiku-9-9"/,
    );
    wrongRole.settings.housekeepingModelByRole = { coder: 'claude-haiku-5-5' };
    fs.writeFileSync(statePaths(dir).config, JSON.stringify(wrongRole));
    const spawned = await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir]);
    expect(spawned.code, spawned.stderr).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the long task done');
    const own = requests.filter((r) => r.teammate === 'alice').map((r) => r.request);
    // Text blocks, and those riding in a tool result (text after results goes there).
    const blockTexts = (b: Record<string, unknown>): string[] =>
      typeof b.text === 'string' ? [b.text] : Array.isArray(b.content) ? (b.content as Record<string, unknown>[]).flatMap(blockTexts) : [];
    const texts = (r: (typeof own)[number]) => r.messages.flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.flatMap(blockTexts)));
    const summaries = own.filter((r) => texts(r).some((t) => t.startsWith('[teamd:summarize]')));
    const helpers = own.filter((r) => texts(r).some((t) => t.startsWith('[teamd:subtask]')));
    const work = own.filter((r) => !summaries.includes(r) && !helpers.includes(r));
    expect(summaries.length).toBeGreaterThan(0);
    expect(helpers.length).toBeGreaterThan(0);
    // The role's setting wins over the team's.
    expect(new Set([...summaries, ...helpers].map((r) => r.model))).toEqual(new Set(['claude-haiku-5-5']));
    expect(new Set(work.map((r) => r.model))).toEqual(new Set(['claude-sonnet-5-5']));
  });
});
