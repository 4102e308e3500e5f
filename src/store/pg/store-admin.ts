import pg from 'pg';
import type { Logger } from '../../logger.js';
import { redactUrl } from '../store-setting.js';
import { migrate } from './schema.js';
import { storeError } from './transaction.js';

/** `teamd store init`: brings the database's teamd schema up to date (idempotent, versioned). */
export async function migrateStore(url: string, logger: Logger): Promise<{ from: number; to: number; applied: number[] }> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on('error', (error) => logger.warn({ err: error, store: redactUrl(url) }, 'store connection failed'));
  try {
    return await migrate(pool);
  } catch (error) {
    throw storeError(error);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
