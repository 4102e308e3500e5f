import { Command, Argument } from 'commander';
import { bashScript, completionSpec, fishScript, zshScript } from '../completion-scripts.js';
import type { Io } from '../output.js';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionCommand(io: Io): Command {
  return new Command('completion')
    .description('print a shell completion script: eval "$(teamd completion bash)" (zsh alike; fish: > ~/.config/fish/completions/teamd.fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(SHELLS)))
    .action(async (shell: keyof typeof SHELLS) => {
      // Every command, so the script knows them all (main.ts loads only the one named).
      const { buildProgram } = await import('../main.js');
      io.out(SHELLS[shell](completionSpec(await buildProgram(io, []))));
    });
}
