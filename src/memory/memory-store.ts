import fs from 'node:fs';
import path from 'node:path';
import { TeamdError } from '../errors.js';
import type { FileLocker } from '../fs/file-lock.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import type { StatePaths } from '../paths.js';
import { readTextIfExists } from '../fs/read-text.js';
import type { MemoryScope } from '../contracts/tool.js';

/** What of each memory file goes into a system prompt; past it, the head and a note that it was cut. */
export const MEMORY_PROMPT_CHARS = 8_000;
export const MAX_REMEMBERED_CHARS = 2_000;

/**
 * Long-term memory in plain Markdown the person edits by hand: `memory/MEMORY.md` for the team,
 * `memory/<name>.md` for one teammate. `remember` appends one line under the file's lock, so two
 * teammates remembering at once both keep their line.
 */
export class MemoryStore {
  constructor(
    private readonly paths: StatePaths,
    private readonly locker: FileLocker,
  ) {}

  fileOf(scope: MemoryScope, name: string): string {
    return path.join(this.paths.memoryDir, scope === 'team' ? 'MEMORY.md' : `${name}.md`);
  }

  /** A memory file as the prompt shows it (bounded); empty when there is none. */
  forPrompt(scope: MemoryScope, name: string): string {
    const file = this.fileOf(scope, name);
    let text: string;
    try {
      text = readTextIfExists(file) ?? '';
    } catch {
      return '';
    }
    if (text.length <= MEMORY_PROMPT_CHARS) return text.trim();
    return `${text.slice(0, MEMORY_PROMPT_CHARS).trimEnd()}\n[… cut here: ${path.basename(file)} holds ${text.length} characters, only the first ${MEMORY_PROMPT_CHARS} are shown; the person can shorten it]`;
  }

  async remember(scope: MemoryScope, name: string, text: string): Promise<string> {
    const entry = text.replace(/\s+/g, ' ').trim();
    if (entry === '') throw new TeamdError('USAGE', 'nothing to remember: the text is empty');
    if (entry.length > MAX_REMEMBERED_CHARS)
      throw new TeamdError('MESSAGE_TOO_LARGE', `one memory is at most ${MAX_REMEMBERED_CHARS} characters; this one has ${entry.length}`);
    ensurePrivateDir(this.paths.memoryDir);
    const file = this.fileOf(scope, name);
    await this.locker.withLock(file, () => {
      // One write of one whole line; a file edited by hand without a final newline gets one first.
      const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
      const needsNewline = size > 0 && !endsWithNewline(file, size);
      fs.appendFileSync(file, `${needsNewline ? '\n' : ''}- ${entry}\n`, { mode: 0o600 });
    });
    return file;
  }
}

function endsWithNewline(file: string, size: number): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}
