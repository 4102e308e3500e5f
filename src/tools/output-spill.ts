import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readSliceAndClose } from '../fs/read-text.js';
import { statePaths } from '../paths.js';
import type { ToolResult } from '../contracts/tool.js';

/** How read_file names a spilled output: `teamd-output:<tool call id>`. */
export const OUTPUT_REF = 'teamd-output:';
/** Past this, an output goes to a file and the conversation gets its head and tail. */
export const MAX_RESULT_CHARS = 24_000;
const PREVIEW_CHARS = 4_000;
const CALL_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Outputs kept per teammate: the oldest go first, so the folder never grows without end. */
const KEEP_FILES = 200;

/**
 * Budgets a tool result when it is made: a large output is written whole under the state folder
 * (`outputs/<teammate>/<call id>.txt`) and the model gets its head and tail and the reference
 * read_file pages through. Small results pass unchanged.
 */
export function budgetResult(result: ToolResult, where: { stateDir: string; name: string; callId: string | undefined }, limit = MAX_RESULT_CHARS): ToolResult {
  if (result.content.length <= limit || !where.callId || !CALL_ID.test(where.callId)) return result;
  const file = statePaths(where.stateDir).outputFile(where.name, where.callId);
  try {
    ensurePrivateDir(path.dirname(file));
    writeFileAtomicSync(file, result.content);
    pruneOldest(path.dirname(file), KEEP_FILES);
  } catch {
    // No room to keep it whole: the preview alone still keeps the conversation small.
    return { ...result, content: preview(result.content, `the whole output could not be saved`) };
  }
  const ref = `${OUTPUT_REF}${where.callId}`;
  return {
    ...result,
    content: preview(
      result.content,
      `the whole output (${result.content.length} characters) is in ${ref}: page through it with read_file {"path": "${ref}", "offset": n}`,
    ),
  };
}

function preview(text: string, note: string): string {
  return `${text.slice(0, PREVIEW_CHARS)}\n[… ${text.length - 2 * PREVIEW_CHARS} characters not shown; ${note} …]\n${text.slice(-PREVIEW_CHARS)}`;
}

/** Reads a teammate's own spilled output from a byte offset; null when the reference is not one. */
export function readSpilled(
  ref: string,
  where: { stateDir: string; name: string },
  offset: number,
  max: number,
): { text: string; size: number; length: number } | null {
  if (!ref.startsWith(OUTPUT_REF)) return null;
  const id = ref.slice(OUTPUT_REF.length);
  if (!CALL_ID.test(id)) throw new Error(`${ref} is not an output reference (expected ${OUTPUT_REF}<tool call id>)`);
  return readSliceAndClose(fs.openSync(statePaths(where.stateDir).outputFile(where.name, id), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW), offset, max);
}

function pruneOldest(dir: string, keep: number): void {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.txt'));
  if (files.length <= keep) return;
  const byAge = files.map((f) => ({ f, at: fs.statSync(path.join(dir, f)).mtimeMs })).sort((a, b) => a.at - b.at);
  for (const { f } of byAge.slice(0, files.length - keep)) fs.rmSync(path.join(dir, f), { force: true });
}
