import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLocker } from '../../src/fs/file-lock.js';
import { createLogger } from '../../src/log/logger.js';
import { MEMORY_PROMPT_CHARS, MemoryStore } from '../../src/memory/memory-store.js';
import { statePaths } from '../../src/paths.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function store() {
  const paths = statePaths(path.join(makeTempDir('teamd-mem-'), '.team'));
  return { paths, memory: new MemoryStore(paths, new FileLocker({ logger: createLogger({ level: 'silent' }) })) };
}

describe('memory files', () => {
  it('a file past the bound shows its head and says it was cut', () => {
    const { paths, memory } = store();
    fs.mkdirSync(paths.memoryDir, { recursive: true });
    fs.writeFileSync(path.join(paths.memoryDir, 'MEMORY.md'), `${'x'.repeat(MEMORY_PROMPT_CHARS)}TAIL-NEVER-SHOWN`);
    const shown = memory.forPrompt('team', 'alice');
    expect(shown.startsWith('x'.repeat(100))).toBe(true);
    expect(shown).not.toContain('TAIL-NEVER-SHOWN');
    expect(shown).toContain(`MEMORY.md holds ${MEMORY_PROMPT_CHARS + 16} characters, only the first ${MEMORY_PROMPT_CHARS} are shown`);
    expect(memory.forPrompt('me', 'alice')).toBe('');
  });

  it('remember keeps one line per call, after a hand-edited file without a final newline; empty and oversized text are refused', async () => {
    const { paths, memory } = store();
    fs.mkdirSync(paths.memoryDir, { recursive: true });
    fs.writeFileSync(path.join(paths.memoryDir, 'alice.md'), '# notes by hand');
    await memory.remember('me', 'alice', 'first\nfact   spread over lines');
    expect(fs.readFileSync(path.join(paths.memoryDir, 'alice.md'), 'utf8')).toBe('# notes by hand\n- first fact spread over lines\n');
    await expect(memory.remember('me', 'alice', '   ')).rejects.toThrow('nothing to remember');
    await expect(memory.remember('team', 'alice', 'y'.repeat(2_001))).rejects.toThrow('one memory is at most 2000 characters');
    expect(fs.existsSync(path.join(paths.memoryDir, 'MEMORY.md'))).toBe(false);
  });
});
