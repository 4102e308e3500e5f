import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../../helpers/board.js';
import { collectOutput, startFixture, waitForLine } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

async function seed(root: string, count: number): Promise<void> {
  const { board } = openBoard(root);
  for (let i = 0; i < count; i++) await board.add({ subject: `task ${i + 1}` });
}

/** Runs racer processes to the end and returns every claim they reported, by owner. */
async function race(root: string, racers: number): Promise<Map<number, string[]>> {
  const runs = Array.from({ length: racers }, (_, i) => {
    const owner = `racer-${i}`;
    return collectOutput(startFixture('claim-racer.mjs', [root, owner])).then((out) => ({ owner, out }));
  });
  const claims = new Map<number, string[]>();
  for (const { owner, out } of await Promise.all(runs)) {
    expect(out.code, out.stderr).toBe(0);
    for (const line of out.stdout.split('\n')) {
      const match = /^claimed (\d+) (\d+)$/.exec(line);
      if (match) claims.set(Number(match[1]), [...(claims.get(Number(match[1])) ?? []), owner]);
    }
  }
  return claims;
}

describe('claiming across processes', () => {
  it('8 processes racing claim-next over 600 tasks claim every task exactly once', async () => {
    const root = makeTempDir();
    await seed(root, 600);
    const claims = await race(root, 8);
    expect(claims.size).toBe(600);
    const doubles = [...claims].filter(([, owners]) => owners.length !== 1);
    expect(doubles).toEqual([]);
    const { board } = openBoard(root);
    const listing = board.list();
    expect(listing.problems).toEqual([]);
    for (const task of listing.tasks) {
      expect(task).toMatchObject({ status: 'in_progress', claim: 1, owner: claims.get(task.id)?.[0] });
    }
    expect(new Set([...claims.values()].map(([owner]) => owner)).size).toBeGreaterThan(1);
  });

  it('a process killed -9 while holding a task lock does not stop the others finishing', async () => {
    const root = makeTempDir();
    await seed(root, 40);
    const { paths } = openBoard(root);
    const holder = startFixture('lock-holder.mjs', [paths.taskFile(1)]);
    await waitForLine(holder, /^locked$/);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(fs.existsSync(`${paths.taskFile(1)}.lock`)).toBe(true);

    const claims = await race(root, 4);
    expect([...claims.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect([...claims.values()].every((owners) => owners.length === 1)).toBe(true);
    expect(fs.existsSync(`${paths.taskFile(1)}.lock`)).toBe(false);
  });
});
