/**
 * The simple commands of a shell line: split on `&&`, `||`, `;`, `|`, `&` and newlines outside
 * quotes, each trimmed. A rule is checked against every one of them, so `npm test && rm -rf x`
 * is not let through by a rule for `npm test`. Command substitution (`$(…)`, backticks) and
 * subshells cannot be judged from the text: `opaque` says so, and no allow rule covers them.
 */
export interface SplitCommand {
  readonly commands: readonly string[];
  readonly opaque: boolean;
}

export function splitShellCommand(line: string): SplitCommand {
  const commands: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let opaque = false;
  const flush = (): void => {
    const command = current.trim();
    if (command) commands.push(command);
    current = '';
  };
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    const next = line[i + 1];
    if (quote) {
      if (char === '\\' && quote === '"' && next !== undefined) {
        current += char + next;
        i++;
        continue;
      }
      if (char === quote) quote = null;
      // Inside double quotes, $( and backticks still run a command.
      if (quote === '"' && (char === '`' || (char === '$' && next === '('))) opaque = true;
      current += char;
      continue;
    }
    if (char === '\\' && next !== undefined) {
      current += char + next;
      i++;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      current += char;
      continue;
    }
    if (char === '`' || (char === '$' && next === '(') || char === '(' || char === '{' || (char === '<' && next === '(')) opaque = true;
    // A redirection (2>&1, &>file, >&2) is part of its command, not a separator.
    if (char === '&' && (line[i - 1] === '>' || next === '>')) {
      current += char;
      continue;
    }
    if ((char === '&' && next === '&') || (char === '|' && next === '|')) {
      flush();
      i++;
      continue;
    }
    if (char === ';' || char === '|' || char === '&' || char === '\n') {
      flush();
      continue;
    }
    current += char;
  }
  flush();
  // An unclosed quote: the shell would refuse it or read more; nothing can be judged.
  if (quote) opaque = true;
  return { commands, opaque };
}
