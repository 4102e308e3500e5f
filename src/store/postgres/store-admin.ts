import type { Logger } from '../../log/logger.js';
import { createPool } from './pg-pool.js';
import { migrate } from './schema.js';
import { storeError } from './transaction.js';

/** `teamd store init`: brings the database's teamd schema up to date (idempotent, versioned). */
export async function migrateStore(url: string, logger: Logger): Promise<{ from: number; to: number; applied: number[] }> {
  const pool = createPool(url, 1, logger);
  try {
    return await migrate(pool);
  } catch (error) {
    throw storeError(error);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
