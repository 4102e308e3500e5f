import type { Command, Option } from 'commander';

/** A command as completion sees it: its name, what it does, its options and its subcommands. */
export interface CompletionSpec {
  readonly name: string;
  readonly description: string;
  readonly options: readonly { readonly flag: string; readonly description: string; readonly takesValue: boolean }[];
  readonly subcommands: readonly CompletionSpec[];
}

export function completionSpec(command: Command): CompletionSpec {
  return {
    name: command.name(),
    description: command.description(),
    options: [...command.options, ...helpOption(command)].map((option: Option) => ({
      flag: option.long ?? option.short ?? '',
      description: option.description,
      takesValue: option.required || option.optional,
    })),
    subcommands: command.commands.map(completionSpec),
  };
}

function helpOption(command: Command): Option[] {
  const help = (command as unknown as { _getHelpOption?: () => Option | null })._getHelpOption?.();
  return help ? [help] : [];
}

const words = (specs: readonly { name?: string; flag?: string }[]): string => specs.map((s) => s.name ?? s.flag).join(' ');

/** Bash: complete -F, from the spec; --dir completes folders. */
export function bashScript(root: CompletionSpec): string {
  const cases = root.subcommands
    .map((command) => {
      if (command.subcommands.length === 0) return `    ${command.name}) COMPREPLY=( $(compgen -W "${words(command.options)}" -- "$cur") ) ;;`;
      const inner = command.subcommands.map((sub) => `        ${sub.name}) COMPREPLY=( $(compgen -W "${words(sub.options)}" -- "$cur") ) ;;`).join('\n');
      return `    ${command.name})\n      case "$sub" in\n        "") COMPREPLY=( $(compgen -W "${words(command.subcommands)}" -- "$cur") ) ;;\n${inner}\n      esac ;;`;
    })
    .join('\n');
  return `# teamd completion for bash: eval "$(teamd completion bash)", or save it in
# ~/.local/share/bash-completion/completions/teamd
_teamd() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" sub="" word
  if [[ "$prev" == "--dir" ]]; then COMPREPLY=( $(compgen -d -- "$cur") ); return; fi
  local skip=""
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    if [[ "$word" == "--dir" ]]; then skip=1; continue; fi
    [[ "$word" == -* ]] && continue
    if [[ -z "$cmd" ]]; then cmd="$word"; elif [[ -z "$sub" ]]; then sub="$word"; fi
  done
  case "$cmd" in
    "") COMPREPLY=( $(compgen -W "${words(root.subcommands)} ${words(root.options)}" -- "$cur") ) ;;
${cases}
  esac
}
complete -F _teamd teamd
`;
}

/** Zsh: its bash-completion bridge runs the bash function (one source of truth). */
export function zshScript(root: CompletionSpec): string {
  return `# teamd completion for zsh: eval "$(teamd completion zsh)" in ~/.zshrc
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(root)
  .split('\n')
  .filter((line) => !line.startsWith('#'))
  .join('\n')}`;
}

/** Fish: one complete line per command and option, with descriptions. */
export function fishScript(root: CompletionSpec): string {
  const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = ['# teamd completion for fish: teamd completion fish > ~/.config/fish/completions/teamd.fish', 'complete -c teamd -f'];
  const option = (condition: string, o: CompletionSpec['options'][number]): string =>
    `complete -c teamd -n ${quote(condition)} -l ${o.flag.replace(/^--/, '')}${o.takesValue ? ' -r' : ''}${o.flag === '--dir' ? ' -a "(__fish_complete_directories)"' : ''} -d ${quote(o.description)}`;
  for (const command of root.subcommands) lines.push(`complete -c teamd -n '__fish_use_subcommand' -a ${command.name} -d ${quote(command.description)}`);
  for (const o of root.options) lines.push(option('__fish_use_subcommand', o));
  for (const command of root.subcommands) {
    const seen = `__fish_seen_subcommand_from ${command.name}`;
    for (const sub of command.subcommands) lines.push(`complete -c teamd -n ${quote(seen)} -a ${sub.name} -d ${quote(sub.description)}`);
    for (const o of command.options) lines.push(option(seen, o));
    for (const sub of command.subcommands) for (const o of sub.options) lines.push(option(`${seen}; and __fish_seen_subcommand_from ${sub.name}`, o));
  }
  return `${lines.join('\n')}\n`;
}
