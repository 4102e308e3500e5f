import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runTeamd } from '../helpers/processes.js';
import { openBoard } from '../helpers/board.js';
import { bashPermissionAsker, writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** What bash offers after typing `line` (the word under the cursor is the last one, maybe empty), with teamd on the PATH as after an install. */
function bashComplete(script: string, line: string, env: NodeJS.ProcessEnv = {}): string[] {
  const file = path.join(makeTempDir(), 'teamd.bash');
  fs.writeFileSync(file, script);
  const words = line.split(' ');
  const program = `source ${JSON.stringify(file)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _teamd; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { TEAMD_DIR: _ignored, ...rest } = process.env;
  const result = spawnSync('bash', ['-c', program], { encoding: 'utf8', env: { ...rest, PATH: `${path.join(REPO_ROOT, 'bin')}:${process.env.PATH}`, ...env } });
  // A completion never prints into the line being typed.
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter(Boolean);
}

describe('teamd completion', () => {
  it('bash: commands, subcommands and options of the command being typed; --dir completes folders', async () => {
    const result = await runTeamd(['completion', 'bash']);
    expect(result.code, result.stderr).toBe(0);
    expect(spawnSync('bash', ['-n', '-c', result.stdout]).status).toBe(0);
    expect(bashComplete(result.stdout, 'teamd st')).toEqual(['start', 'stop', 'status', 'store']);
    expect(bashComplete(result.stdout, 'teamd task ')).toEqual(['add', 'list', 'show', 'claim', 'done', 'fail', 'cancel', 'release', 'block']);
    expect(bashComplete(result.stdout, 'teamd task add --d')).toEqual(['--dir', '--description']);
    expect(bashComplete(result.stdout, 'teamd --dir x spawn --p')).toEqual(['--prompt', '--plan']);
    const root = makeTempDir();
    fs.mkdirSync(path.join(root, 'team-a'));
    expect(bashComplete(result.stdout, `teamd status --dir ${root}/te`)).toEqual([`${root}/team-a`]);
  });

  it("bash: arguments and options that name a teammate, a task, a waiting request or a cron job complete from the line's state folder", async () => {
    const script = (await runTeamd(['completion', 'bash'])).stdout;
    const ws = makeTempDir();
    const dir = path.join(ws, '.team');
    const paths = writeRoster(dir, ['alice', 'bob']);
    const { board } = openBoard(dir);
    for (const subject of ['one', 'two', 'three']) await board.add({ subject });
    const request = bashPermissionAsker(paths, 2)('alice', 'npm test');
    expect((await runTeamd(['cron', 'add', '--in', '5m', 'wake up', '--to', 'bob', '--dir', dir])).code).toBe(0);
    expect(bashComplete(script, `teamd send --dir ${dir} `)).toEqual(['lead', 'alice', 'bob']);
    expect(bashComplete(script, `teamd --dir ${dir} shutdown a`)).toEqual(['alice']);
    expect(bashComplete(script, `teamd task show --dir=${dir} `)).toEqual(['1', '2', '3']);
    // The words after a value-taking option are not arguments: --owner's value, then the id.
    expect(bashComplete(script, `teamd task done --dir ${dir} --owner `)).toEqual(['lead', 'alice', 'bob']);
    expect(bashComplete(script, `teamd task done --dir ${dir} --owner alice 3`)).toEqual(['3']);
    expect(bashComplete(script, `teamd task add x --dir ${dir} --blocked-by `)).toEqual(['1', '2', '3']);
    expect(bashComplete(script, `teamd approve --dir ${dir} `)).toEqual([request.requestId!.slice(0, 8)]);
    expect(bashComplete(script, `teamd cron rm --dir ${dir} `)).toEqual(['c1']);
    expect(bashComplete(script, `teamd merge --dir ${dir} 2`)).toEqual(['2']);
    // No --dir: $TEAMD_DIR, else ./.team of the folder the shell is in, as the command reads it.
    expect(bashComplete(script, 'teamd logs ', { TEAMD_DIR: dir })).toEqual(['lead', 'alice', 'bob']);
    // The second argument of budget is a number: nothing to offer; an option is still completed.
    expect(bashComplete(script, `teamd budget --dir ${dir} alice `)).toEqual(['--dir', '--json', '--team', '--help']);
    // A folder that is not a team offers nothing, and says nothing.
    expect(bashComplete(script, `teamd send --dir ${path.join(ws, 'nothing-here')} `)).toEqual([]);
    // The hidden command is in neither help nor the list of commands.
    expect(bashComplete(script, 'teamd __')).toEqual([]);
    expect((await runTeamd(['--help'])).stdout).not.toContain('__complete');
    const fish = (await runTeamd(['completion', 'fish'])).stdout;
    expect(fish).toContain(
      "complete -c teamd -n '__fish_seen_subcommand_from task; and __fish_seen_subcommand_from show' -a '(teamd __complete tasks 2>/dev/null)'",
    );
    expect(fish).toContain("complete -c teamd -n '__fish_seen_subcommand_from send' -a '(teamd __complete members 2>/dev/null)'");
  });

  it('zsh (through bashcompinit) and fish scripts name every command; an unknown shell is refused', async () => {
    const zsh = await runTeamd(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/bashcompinit/);
    expect(zsh.stdout).toMatch(/complete -F _teamd teamd/);
    const fish = await runTeamd(['completion', 'fish']);
    for (const command of ['start', 'status', 'plans', 'task', 'completion']) expect(fish.stdout).toContain(`-a ${command} -d `);
    expect(fish.stdout).toContain("complete -c teamd -n '__fish_seen_subcommand_from task' -a add");
    const wrong = await runTeamd(['completion', 'powershell']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
