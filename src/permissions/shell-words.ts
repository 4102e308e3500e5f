/**
 * Words of a shell line as the shell reads them: quotes removed, escapes applied, expansions
 * kept as written but marked (a word with one is not literal), and what a substitution runs handed
 * on to be read as commands (shell-commands.ts).
 */
export interface Word {
  readonly text: string;
  /** No expansion in it: its text is what the program gets. */
  readonly literal: boolean;
}

/** Past a redirection operator at `i` (`>`, `>>`, `<`, `2>`, `&>`, `>&`, `<<<`, …), or null when there is none. */
export function redirection(line: string, i: number): number | null {
  const match = /^(?:\d*(?:>>|>\||>&|<&|<<<|<<-?|<>|>|<)|&>>?)/.exec(line.slice(i));
  if (!match) return null;
  // A digit starts a redirection only when it is followed by one (2>x, not a word like 2x).
  return i + match[0].length;
}

/**
 * The index of the `)` that closes the `(` at `open`, quotes and nesting respected, and the bodies
 * of here-documents skipped (an apostrophe in `$(cat <<'EOF' … don't … EOF)` is text); null when
 * none does.
 */
export function matching(line: string, open: number): number | null {
  let depth = 0;
  let quote: '"' | "'" | null = null;
  const heredocs: { delimiter: string; tabs: boolean }[] = [];
  for (let i = open; i < line.length; i++) {
    const char = line[i]!;
    if (quote) {
      if (char === '\\' && quote === '"') i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '\n' && heredocs.length > 0) {
      const after = pastBodies(line, i + 1, heredocs.splice(0));
      if (after === null) return null;
      i = after - 1;
      continue;
    }
    const heredoc = char === '<' ? /^<<(-?)[ \t]*(['"]?)([A-Za-z0-9_.-]+)\2/.exec(line.slice(i)) : null;
    if (heredoc) {
      heredocs.push({ delimiter: heredoc[3]!, tabs: heredoc[1] === '-' });
      i += heredoc[0].length - 1;
    } else if (char === '\\') i++;
    else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return null;
}

/** Past the bodies of here-documents starting at `from` (each up to its delimiter's line); null when one never ends. */
function pastBodies(line: string, from: number, heredocs: readonly { delimiter: string; tabs: boolean }[]): number | null {
  let at = from;
  for (const heredoc of heredocs) {
    for (;;) {
      if (at > line.length) return null;
      const newline = line.indexOf('\n', at);
      const end = newline < 0 ? line.length : newline;
      const body = line.slice(at, end);
      at = end + 1;
      if ((heredoc.tabs ? body.replace(/^\t+/, '') : body) === heredoc.delimiter) break;
      if (newline < 0) return null;
    }
  }
  return at;
}

/** What a word's reader is told: the commands its substitutions run, and text that cannot be read. */
export interface WordReader {
  substitute(inner: string): void;
  opaque(): void;
}

/** One word from `start`: dequoted, what its substitutions run handed to `reader`. */
export function readWord(line: string, start: number, reader: WordReader): { word: Word; next: number } {
  let text = '';
  let literal = true;
  let i = start;
  const substitute = (inner: string): void => {
    literal = false;
    reader.substitute(inner);
  };
  while (i < line.length) {
    const char = line[i]!;
    if (/[\s;&|()<>]/.test(char)) break;
    if (char === '\\') {
      if (line[i + 1] !== '\n') text += line[i + 1] ?? '';
      i += 2;
      continue;
    }
    if (char === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return { word: { text, literal: false }, next: markOpaque(reader, line.length) };
      text += line.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    if (char === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        const inner = line[i]!;
        if (inner === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          text += line[i + 1];
          i += 2;
        } else if (inner === '$' || inner === '`') {
          const expansion = readExpansion(line, i, substitute);
          if (expansion === null) return { word: { text, literal: false }, next: markOpaque(reader, line.length) };
          literal = false;
          text += line.slice(i, expansion);
          i = expansion;
        } else {
          text += inner;
          i++;
        }
      }
      if (i >= line.length) return { word: { text, literal: false }, next: markOpaque(reader, line.length) };
      i++;
      continue;
    }
    if (char === '$' || char === '`') {
      const expansion = readExpansion(line, i, substitute);
      if (expansion === null) return { word: { text, literal: false }, next: markOpaque(reader, line.length) };
      literal = false;
      text += line.slice(i, expansion);
      i = expansion;
      continue;
    }
    if (char === '*' || char === '?' || char === '[') literal = false;
    text += char;
    i++;
  }
  return { word: { text, literal }, next: i };
}

function markOpaque(reader: WordReader, next: number): number {
  reader.opaque();
  return next;
}

/** Past a `$…` or backtick expansion at `i`, its command read through `substitute`; null when it never closes. */
function readExpansion(line: string, i: number, substitute: (inner: string) => void): number | null {
  if (line[i] === '`') {
    let close = i + 1;
    while (close < line.length && line[close] !== '`') close += line[close] === '\\' ? 2 : 1;
    if (close >= line.length) return null;
    substitute(line.slice(i + 1, close).replace(/\\([`\\$])/g, '$1'));
    return close + 1;
  }
  const next = line[i + 1];
  if (next === '(') {
    const close = matching(line, i + 1);
    if (close === null) return null;
    // $(( … )) is arithmetic, but $( ( … ) ) a subshell: both are read as commands, which can only add to what the rules see.
    substitute(line.slice(i + 2, close));
    return close + 1;
  }
  if (next === '{') {
    const close = line.indexOf('}', i + 2);
    return close < 0 ? null : close + 1;
  }
  const name = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9#?$!@*-]/.exec(line.slice(i + 1));
  return i + 1 + (name ? name[0].length : 0);
}
