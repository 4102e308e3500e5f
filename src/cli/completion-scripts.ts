import type { Command, Option } from 'commander';
import { argumentWords, type WordKind } from './completion-words.js';
import { isHidden } from './start/command-names.js';

/** A command as completion sees it: its name, what it does, its options, its arguments' words and its subcommands. */
export interface CompletionSpec {
  readonly name: string;
  readonly description: string;
  readonly options: readonly { readonly flag: string; readonly short: string | null; readonly description: string; readonly takesValue: boolean }[];
  /** What each positional argument names, in order (completion-words.ts); null where no words are offered. */
  readonly arguments: readonly (WordKind | null)[];
  readonly subcommands: readonly CompletionSpec[];
}

export function completionSpec(command: Command): CompletionSpec {
  return {
    name: command.name(),
    description: command.description(),
    options: [...command.options, ...helpOption(command)].map((option: Option) => ({
      flag: option.long ?? option.short ?? '',
      short: option.long && option.short ? option.short : null,
      description: option.description,
      takesValue: option.required || option.optional,
    })),
    arguments: command.registeredArguments.map(argumentWords),
    subcommands: command.commands.filter((sub) => !isHidden(sub.name())).map(completionSpec),
  };
}

/** Every flag that takes a value, in any command: the word after it is that value, not an argument. */
function valueFlags(spec: CompletionSpec): string[] {
  const own = spec.options.filter((o) => o.takesValue && o.flag !== '--dir').flatMap((o) => (o.short ? [o.flag, o.short] : [o.flag]));
  return [...new Set([...own, ...spec.subcommands.flatMap(valueFlags)])];
}

/** Options whose value names a teammate or tasks, in whichever command they appear. */
const VALUE_WORDS: readonly (readonly [readonly string[], WordKind])[] = [
  [['--owner', '--to', '--from', '--teammate'], 'members'],
  [['--blocked-by', '--by', '--task'], 'tasks'],
];

/** The argument kinds as the bash helper reads them: space-separated, '-' for none. */
const kindWords = (spec: CompletionSpec): string => spec.arguments.map((kind) => kind ?? '-').join(' ');

function helpOption(command: Command): Option[] {
  const help = (command as unknown as { _getHelpOption?: () => Option | null })._getHelpOption?.();
  return help ? [help] : [];
}

const words = (specs: readonly { name?: string; flag?: string }[]): string => specs.map((s) => s.name ?? s.flag).join(' ');

/**
 * Bash: complete -F, from the spec; --dir completes folders; an argument that names a task, a
 * teammate, a request or a cron job completes with the words `teamd __complete <kind>` reads from
 * the state folder the line names (--dir), else $TEAMD_DIR or ./.team, as the command will.
 */
export function bashScript(root: CompletionSpec): string {
  const offer = (spec: CompletionSpec, before: number): string => `_teamd_offer $(( \${#pos[@]} - ${before} )) "${kindWords(spec)}" "${words(spec.options)}"`;
  const cases = root.subcommands
    .map((command) => {
      if (command.subcommands.length === 0) return `    ${command.name}) ${offer(command, 1)} ;;`;
      const inner = command.subcommands.map((sub) => `        ${sub.name}) ${offer(sub, 2)} ;;`).join('\n');
      return `    ${command.name})\n      case "$sub" in\n        "") COMPREPLY=( $(compgen -W "${words(command.subcommands)}" -- "$cur") ) ;;\n${inner}\n      esac ;;`;
    })
    .join('\n');
  const skips = valueFlags(root);
  return `# teamd completion for bash: eval "$(teamd completion bash)", or save it in
# ~/.local/share/bash-completion/completions/teamd
_teamd_words() {
  COMPREPLY=( $(compgen -W "$(command teamd __complete "$1" \${dir:+--dir "$dir"} 2>/dev/null)" -- "$cur") )
}
_teamd_offer() {
  local -a kinds=($2)
  local kind="\${kinds[$1]:-}"
  if [[ "$cur" != -* && -n "$kind" && "$kind" != "-" ]]; then _teamd_words "$kind"
  else COMPREPLY=( $(compgen -W "$3" -- "$cur") )
  fi
}
_teamd() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" sub="" dir="" word skip=""
  local -a pos=()
  if [[ "$prev" == "--dir" ]]; then COMPREPLY=( $(compgen -d -- "$cur") ); return; fi
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    if [[ -n "$skip" ]]; then [[ "$skip" == dir ]] && dir="$word"; skip=""; continue; fi
    case "$word" in
      --dir) skip=dir ;;
      --dir=*) dir="\${word#--dir=}" ;;${skips.length > 0 ? `\n      ${skips.join('|')}) skip=1 ;;` : ''}
      -*) ;;
      *) pos+=("$word") ;;
    esac
  done
  case "$prev" in
${VALUE_WORDS.map(([flags, kind]) => `    ${flags.join('|')}) _teamd_words ${kind}; return ;;`).join('\n')}${skips.length > 0 ? `\n    ${skips.join('|')}) COMPREPLY=(); return ;;` : ''}
  esac
  cmd="\${pos[0]:-}"
  sub="\${pos[1]:-}"
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
  // An argument's words, for the first argument that names something (fish has no word positions).
  const argumentLine = (condition: string, spec: CompletionSpec): string[] => {
    const kind = spec.arguments.find((k) => k !== null);
    return kind ? [`complete -c teamd -n ${quote(condition)} -a ${quote(`(teamd __complete ${kind} 2>/dev/null)`)}`] : [];
  };
  for (const command of root.subcommands) {
    const seen = `__fish_seen_subcommand_from ${command.name}`;
    if (command.subcommands.length === 0) lines.push(...argumentLine(seen, command));
    for (const sub of command.subcommands) lines.push(...argumentLine(`${seen}; and __fish_seen_subcommand_from ${sub.name}`, sub));
    for (const sub of command.subcommands) lines.push(`complete -c teamd -n ${quote(seen)} -a ${sub.name} -d ${quote(sub.description)}`);
    for (const o of command.options) lines.push(option(seen, o));
    for (const sub of command.subcommands) for (const o of sub.options) lines.push(option(`${seen}; and __fish_seen_subcommand_from ${sub.name}`, o));
  }
  return `${lines.join('\n')}\n`;
}
