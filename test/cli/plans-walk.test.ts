import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { bashPermissionAsker, writeRoster } from '../helpers/team.js';
import { REPO_ROOT, runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const walks: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of walks.splice(0)) child.kill('SIGKILL');
});

/** `teamd plans --watch` with a pipe for the person's lines; `until(re)` waits for output printed since the last answer. */
function startWalk(dir: string) {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/teamd'), 'plans', '--watch', '--dir', dir], { stdio: 'pipe' });
  walks.push(child);
  let stdout = '';
  let stderr = '';
  let mark = 0;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    exited,
    stderr: () => stderr,
    until: (pattern: RegExp) => waitFor(() => pattern.exec(stdout.slice(mark)) ?? undefined, `${pattern} in: ${stdout.slice(mark)}`),
    say: (line: string) => {
      mark = stdout.length;
      child.stdin.write(`${line}\n`);
    },
  };
}

const answersTo = (dir: string, name: string) =>
  readInboxFrom(path.join(dir, 'inbox', `${name}.jsonl`), 0).messages.map(({ message }) => [message.requestId, message.approve, message.content]);

describe('teamd plans --watch', () => {
  it('walks the waiting requests one line each: A writes the prefix rule and answers the requests it covers, r asks why, s leaves one waiting, and a new request wakes it', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const paths = writeRoster(dir, ['alice', 'bob']);
    const ask = bashPermissionAsker(paths, 3);
    const build = ask('alice', 'npm run build');
    const same = ask('bob', 'npm run build -- --prod');
    const push = ask('alice', 'git push origin main');
    const walk = startWalk(dir);

    await walk.until(
      /alice asks to run bash for task 3 \(\d+s ago, request [0-9a-f]{8}; 3 waiting\):\n {4}npm run build\na approve, A always allow Bash\(npm run:\*\), r reject/,
    );
    // A lower-case word that is no answer is named, and the same request is asked again.
    walk.say('yes');
    await walk.until(/"yes" is not an answer: type a, A, r, s or q\n\nalice asks to run bash/);
    walk.say('A');
    await walk.until(
      /approved alice's request to run bash [0-9a-f]{8} for task 3; added the rule Bash\(npm run:\*\) to .*settings\.json; it also approved bob's/,
    );
    // bob's request was answered by the rule: the next one shown is the push.
    await walk.until(/alice asks to run bash for task 3 \(.*; 1 waiting\):\n {4}git push origin main\na approve, A always allow Bash\(git push:\*\)/);
    walk.say('r');
    await walk.until(/why \(the teammate reads it\)\? $/);
    walk.say('');
    await walk.until(/why \(the teammate reads it\)\? $/);
    walk.say('not on Fridays');
    await walk.until(/rejected alice's request to run bash [0-9a-f]{8} for task 3\n/);
    await walk.until(/nothing waits for your answer; waiting for requests \(q quits\)\n/);

    // A request that comes while it waits is shown; answered elsewhere meanwhile, the answer is refused in one line and the walk goes on.
    const late = ask('bob', 'rm -rf build');
    await walk.until(/bob asks to run bash for task 3 .*\n {4}rm -rf build\n/);
    expect((await runTeamd(['reject', late.requestId!.slice(0, 8), '--reason', 'answered in another terminal', '--dir', dir])).code).toBe(0);
    walk.say('a');
    await walk.until(/nothing waits for your answer/);
    expect(walk.stderr()).toMatch(/^teamd: bob's permission request [0-9a-f]{8} was already rejected at .*; nothing was sent\n$/);

    const skippedOne = ask('alice', 'curl https://example.com');
    await walk.until(/\n {4}curl https:\/\/example\.com\n/);
    walk.say('s');
    await walk.until(/skipped [0-9a-f]{8}: it still waits \(teamd plans lists it\)\nnothing waits for your answer but the 1 you skipped/);
    walk.say('q');
    expect(await walk.exited).toBe(0);

    expect(answersTo(dir, 'alice')).toEqual([
      [build.requestId, true, ''],
      [push.requestId, false, 'not on Fridays'],
    ]);
    expect(answersTo(dir, 'bob')).toEqual([
      [same.requestId, true, 'allowed by the rule Bash(npm run:*)'],
      [late.requestId, false, 'answered in another terminal'],
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8'))).toEqual({ permissions: { allow: ['Bash(npm run:*)'] } });
    const waiting = JSON.parse((await runTeamd(['plans', '--json', '--dir', dir])).stdout) as { requestId: string }[];
    expect(waiting.map((request) => request.requestId)).toEqual([skippedOne.requestId]);
  });

  it('ends at the end of its input, answering nothing more; --watch with --json is refused', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const paths = writeRoster(dir, ['alice']);
    const request = bashPermissionAsker(paths, 1)('alice', 'make deploy');
    const walk = startWalk(dir);
    await walk.until(/\n {4}make deploy\n/);
    // "r" at the end of input: the reason never comes, so nothing is sent.
    walk.say('r');
    await walk.until(/why \(the teammate reads it\)\? $/);
    walks[0]!.stdin.end();
    expect(await walk.exited).toBe(0);
    expect(answersTo(dir, 'alice')).toEqual([]);
    const waiting = JSON.parse((await runTeamd(['plans', '--json', '--dir', dir])).stdout) as { requestId: string }[];
    expect(waiting.map((r) => r.requestId)).toEqual([request.requestId]);
    const refused = await runTeamd(['plans', '--watch', '--json', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('teamd: --watch asks about each waiting request in turn; it cannot be combined with --json\n');
  });
});
