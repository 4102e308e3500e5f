import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** What bash offers after typing `line` (the word under the cursor is the last one, maybe empty). */
function bashComplete(script: string, line: string): string[] {
  const file = path.join(makeTempDir(), 'teamd.bash');
  fs.writeFileSync(file, script);
  const words = line.split(' ');
  const program = `source ${JSON.stringify(file)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _teamd; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program], { encoding: 'utf8' }).split('\n').filter(Boolean);
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
