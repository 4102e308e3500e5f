import { Command, Argument } from 'commander';
import { bashScript, completionSpec, fishScript, zshScript } from '../completion-scripts.js';
import type { Io } from '../output.js';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** `everyCommand`: the program with all its commands, whose names and options the script completes. */
export function completionCommand(io: Io, everyCommand: () => Promise<Command>): Command {
  return new Command('completion')
    .description('print a shell completion script: eval "$(teamd completion bash)" (zsh alike; fish: > ~/.config/fish/completions/teamd.fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(Object.keys(SHELLS)))
    .action(async (shell: keyof typeof SHELLS) => {
      io.out(SHELLS[shell](completionSpec(await everyCommand())));
    });
}
