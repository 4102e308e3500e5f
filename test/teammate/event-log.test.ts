import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { logAgentEvent } from '../../src/teammate/event-log.js';
import { headAndTail } from '../../src/text.js';

function capture(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe("a teammate's log of its work", () => {
  it('keeps a bounded head and tail of long text: the end of a build error stays', () => {
    const text = `start\n${'noise\n'.repeat(5000)}error TS2304: Cannot find name 'x' at the very end`;
    const cut = headAndTail(text);
    expect(cut.length).toBeLessThan(1100);
    expect(cut.startsWith('start\n')).toBe(true);
    expect(cut).toMatch(/… \[\d+ characters left out\] …/);
    expect(cut.endsWith("error TS2304: Cannot find name 'x' at the very end")).toBe(true);
    expect(headAndTail('short')).toBe('short');
  });

  it('never logs a whole file written by write_file; every line carries the task id; a failed tool is a warning', () => {
    const { logger, lines } = capture();
    const content = 'line of the file\n'.repeat(10_000);
    logAgentEvent(logger, { type: 'tool_call', id: 't1', name: 'write_file', input: { path: 'big.txt', content } } as never, 7);
    logAgentEvent(logger, { type: 'tool_result', id: 't1', name: 'bash', isError: true, content: `x\n${'y'.repeat(50_000)}\nexit code 2` } as never, 7);
    logAgentEvent(logger, { type: 'text', text: 'done' } as never, null);
    expect(lines[0]).toMatchObject({ level: 30, taskId: 7, tool: 'write_file', msg: 'tool call' });
    const input = lines[0]!.input as { path: string; content: string };
    expect(input.path).toBe('big.txt');
    expect(input.content.length).toBeLessThan(400);
    expect(JSON.stringify(lines[0]).length).toBeLessThan(1000);
    expect(lines[1]).toMatchObject({ level: 40, taskId: 7, tool: 'bash', isError: true, msg: 'tool failed' });
    expect(String(lines[1]!.output).endsWith('exit code 2')).toBe(true);
    expect(lines[2]).not.toHaveProperty('taskId');
  });
});
