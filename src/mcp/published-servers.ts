import path from 'node:path';
import * as z from 'zod';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readTextIfExists } from '../fs/read-text.js';
import type { StatePaths } from '../paths.js';
import type { ServerView } from './mcp-servers.js';
import { isoTime } from '../platform/iso-time.js';

const viewSchema = z.object({
  name: z.string(),
  source: z.enum(['team', 'workspace']),
  type: z.enum(['stdio', 'http']),
  state: z.enum(['connecting', 'ready', 'restarting', 'failed', 'stopped']),
  problem: z.string().nullable(),
  pid: z.number().int().nullable(),
  restarts: z.number().int().nonnegative(),
  tools: z.array(z.string()),
});
const publishedSchema = z.object({ servers: z.array(viewSchema), updatedAt: z.iso.datetime({ offset: true }) });
export type PublishedServers = z.infer<typeof publishedSchema>;

/** `sessions/<name>.mcp.json`: a teammate's MCP servers as it sees them, written whole on every change. */
export function publishServers(paths: StatePaths, name: string, servers: readonly ServerView[], now = new Date()): void {
  ensurePrivateDir(path.dirname(paths.mcpStateFile(name)));
  writeFileAtomicSync(paths.mcpStateFile(name), `${JSON.stringify({ servers, updatedAt: isoTime(now) })}\n`);
}

/** What a teammate last published; null when it published nothing readable (it is only a view). */
export function readPublishedServers(paths: StatePaths, name: string): PublishedServers | null {
  try {
    const raw = readTextIfExists(paths.mcpStateFile(name));
    if (raw === null) return null;
    const parsed = publishedSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
