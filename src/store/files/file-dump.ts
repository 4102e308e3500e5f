import fs from 'node:fs';
import path from 'node:path';
import { TeamdError } from '../../errors.js';
import { appendRecordSync } from '../../fs/append-record.js';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { TaskStore } from './task-store.js';
import { readLiveDaemon } from '../../proc/pid-file.js';
import { CursorStore } from './cursor.js';
import { readInboxFrom } from './inbox-file.js';
import { serializeMessage } from '../../contracts/message.js';
import { readKeyHex } from '../protocol-key.js';
import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import { readConfig } from '../../roster/roster.js';
import { configSchema } from '../../contracts/roster.js';
import { inboxOfConsumer, type DumpableStore, type TeamDump } from '../team-dump.js';

/** A state folder's board, inboxes, cursors, roster and key, read and written whole. */
export function fileDump(paths: StatePaths, logger: Logger): DumpableStore {
  const store = new TaskStore(paths);
  const inboxNames = (): string[] => listNames(paths.inboxDir, '.jsonl');
  return {
    describe: `files in ${paths.root}`,
    dump: async () => {
      const tasks = [];
      const problems: string[] = [];
      for (const id of store.listAllIds()) {
        const read = store.read(id);
        if (read.kind === 'ok') tasks.push(read.task);
        else if (read.kind === 'corrupt') problems.push(`${read.file}: ${read.reason}`);
      }
      if (problems.length > 0)
        throw new TeamdError(
          'TASK_CORRUPT',
          `${problems.length} task file(s) are not valid tasks, so nothing was copied: ${problems.slice(0, 3).join('; ')}. Fix them, or move them out of the tasks folder`,
        );
      const ends = new Map<string, number[]>();
      const read = inboxNames().map((name) => {
        const read = readInboxFrom(paths.inboxFile(name), 0);
        if (read.skipped.length > 0) logger.warn({ inbox: name, skipped: read.skipped.length }, 'inbox lines that are not messages are not copied');
        // An id appended twice (a retried append) is one message: the first copy counts.
        const seen = new Set<string>();
        const kept = read.messages.filter((parsed) => !seen.has(parsed.message.id) && seen.add(parsed.message.id));
        if (kept.length < read.messages.length)
          logger.warn({ inbox: name, duplicates: read.messages.length - kept.length }, 'duplicate message ids are copied once');
        ends.set(
          name,
          kept.map((parsed) => parsed.end),
        );
        return { name, messages: kept.map((parsed) => parsed.message) };
      });
      const inboxes = read;
      const cursors = listNames(paths.cursorsDir, '.json').flatMap((consumer) => {
        const inbox = inboxOfConsumer(consumer);
        const cursor = new CursorStore(path.join(paths.cursorsDir, `${consumer}.json`), logger).read();
        const consumed = (ends.get(inbox) ?? []).filter((end) => end <= cursor.offset).length;
        return [{ consumer, inbox, consumed, lastId: cursor.lastId }];
      });
      const counter = readCounter(paths.taskCounter);
      const key = readKeyHex(paths.protocolKey);
      return {
        tasks,
        nextTaskId: Math.max(counter, ...tasks.map((task) => task.id + 1), 1),
        inboxes,
        cursors,
        members: readConfig(paths.config).members,
        protocolKey: key,
      };
    },
    running: async () => {
      const daemon = readLiveDaemon(paths);
      return daemon ? [`the daemon of ${paths.root} (pid ${daemon.pid})`] : [];
    },
    isEmpty: async () => store.listAllIds().length === 0 && inboxNames().length === 0 && readConfig(paths.config).members.length === 0,
    load: async (dump: TeamDump) => {
      ensurePrivateDir(paths.root);
      store.ensureDir();
      for (const task of dump.tasks) store.write(task);
      writeFileAtomicSync(paths.taskCounter, `${JSON.stringify({ next: dump.nextTaskId })}\n`);
      ensurePrivateDir(paths.inboxDir);
      const ends = new Map<string, number[]>();
      for (const inbox of dump.inboxes) {
        let end = 0;
        const at: number[] = [];
        for (const message of inbox.messages) {
          const line = serializeMessage(message);
          appendRecordSync(paths.inboxFile(inbox.name), line, { durable: false });
          end += Buffer.byteLength(line, 'utf8');
          at.push(end);
        }
        ends.set(inbox.name, at);
      }
      ensurePrivateDir(paths.cursorsDir);
      for (const cursor of dump.cursors) {
        const offset = cursor.consumed === 0 ? 0 : (ends.get(cursor.inbox)?.[cursor.consumed - 1] ?? 0);
        new CursorStore(path.join(paths.cursorsDir, `${cursor.consumer}.json`), logger).write({ offset, lastId: cursor.lastId }, new Date());
      }
      const config = readConfig(paths.config);
      writeFileAtomicSync(paths.config, `${JSON.stringify(configSchema.parse({ ...config, members: dump.members }), null, 2)}\n`);
      if (dump.protocolKey) {
        ensurePrivateDir(path.dirname(paths.protocolKey));
        writeFileAtomicSync(paths.protocolKey, dump.protocolKey);
      }
    },
  };
}

function listNames(dir: string, extension: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => name.endsWith(extension) && !name.startsWith('.'))
      .map((name) => name.slice(0, -extension.length))
      .sort();
  } catch {
    return [];
  }
}

function readCounter(file: string): number {
  try {
    const raw: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return typeof raw === 'object' && raw !== null && 'next' in raw && Number.isInteger(raw.next) ? Number(raw.next) : 1;
  } catch {
    return 1;
  }
}
