import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeThisTestsFoldersGo } from './temp-dir.js';

export interface Received {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A webhook receiver on loopback: it records each POST and answers with the next status of
 * `answers` (the last one repeats; `'stall'` never answers), closed after the test.
 */
export async function startReceiver(answers: readonly (number | 'stall')[] = [200]): Promise<{ url: (path: string) => string; received: Received[] }> {
  const received: Received[] = [];
  const stalled: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)]!;
      if (answer === 'stall') {
        stalled.push(response);
        return;
      }
      response.writeHead(answer, answer === 429 ? { 'retry-after': '1' } : {}).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  beforeThisTestsFoldersGo(async () => {
    for (const response of stalled) response.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { url: (path) => `http://127.0.0.1:${port}${path}`, received };
}
