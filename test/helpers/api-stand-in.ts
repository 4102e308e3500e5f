import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/log/logger.js';
import { OfflineModelServer } from '../../src/model/offline/server.js';
import { OfflineScript, type ScriptStep } from '../../src/model/offline/script.js';
import type { RawRequest } from '../../src/model/offline/request-rules.js';
import { openBoard } from './board.js';
import { makeTempDir, onBeforeTempRemoval } from './temp-dir.js';

const servers: OfflineModelServer[] = [];
onBeforeTempRemoval(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * The path a real model takes — ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, a real model id — against
 * the strict stand-in, started here as "the API" with its own key (not in the daemon: it answers
 * while the daemon is stopped). Closed after the test. `requests`: every Messages request it
 * answered, in order, with the teammate that sent it.
 */
export async function apiStandIn(steps: Record<string, ScriptStep[]> = {}) {
  const file = path.join(makeTempDir(), 'api-script.json');
  fs.writeFileSync(file, JSON.stringify(steps));
  const requests: { teammate: string; request: RawRequest }[] = [];
  const server = await OfflineModelServer.listen({
    script: new OfflineScript(file),
    logger: createLogger(),
    key: 'sk-test-stand-in-key',
    onRequest: (teammate, request) => requests.push({ teammate, request: structuredClone(request) }),
  });
  servers.push(server);
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  return { server, requests, ws, dir, board, env: { ANTHROPIC_API_KEY: server.key, ANTHROPIC_BASE_URL: server.url } };
}
