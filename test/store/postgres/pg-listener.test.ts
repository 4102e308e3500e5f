import pg from 'pg';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { PgListener } from '../../../src/store/postgres/pg-listener.js';
import { connectClient } from '../../../src/store/postgres/pg-pool.js';
import { waitFor } from '../../helpers/wait.js';

const url = inject('pgUrl');
const logger = createLogger();

describe.skipIf(url === null)('the connection that listens to the store (issue 48)', () => {
  it('killed by the server as it starts to LISTEN: the process lives, and the listener connects again', async () => {
    const admin = new pg.Client({ connectionString: url! });
    admin.on('error', () => undefined);
    await admin.connect();
    let attempts = 0;
    const listener = await PgListener.open({
      connect: async () => {
        const client = await connectClient(url!, logger);
        attempts++;
        // The first connection is ended by the server (a restart, an administrator) before LISTEN is answered.
        if (attempts === 1) {
          const ended = new Promise((resolve) => client.once('end', resolve));
          await admin.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
          await ended;
        }
        return client;
      },
      team: 't',
      onEvent: () => undefined,
      onReconnect: () => undefined,
      logger,
    });
    onTestFinished(async () => {
      await listener.close();
      await admin.end();
    });
    await waitFor(() => listener.connected || undefined, 'listening on a second connection', 10_000);
    expect(attempts).toBeGreaterThanOrEqual(2);
  });
});
