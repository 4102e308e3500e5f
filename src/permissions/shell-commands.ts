import { matching, readWord, redirection, type Word, type WordReader } from './shell-words.js';

/**
 * Every simple command a shell line can run, as the rules must see it (docs/permissions.md):
 * inside subshells, groups, `$( … )`, backticks and process substitution, in the string given to
 * `bash -c`, `sh -c` and `eval`, after `xargs` and `find -exec`; with leading `VAR=value` words and
 * wrappers (`command`, `builtin`, `env`, `exec`, `time`, `nice`, `nohup`, `timeout N`, `stdbuf`,
 * `sudo`) stripped, every word dequoted, and a path to a program taken for its name.
 * What the text cannot say (a variable or a substitution as the program's name, `eval` of a
 * variable, a here-document) makes the line `opaque`: rules fail closed on it.
 */
export interface ShellCommands {
  /** Each command as its words: the program's name first. */
  readonly commands: readonly (readonly string[])[];
  /** The line runs something its text does not show. */
  readonly opaque: boolean;
  /** Something runs inside something else (a substitution, a subshell, a -c string): no allow rule covers such a line. */
  readonly nested: boolean;
  /** A command is run with `VAR=value` before it (PATH=… npm test runs another npm): no allow rule covers such a line either. */
  readonly assigns: boolean;
}

/** How deep strings inside strings are read; deeper is opaque. */
const MAX_DEPTH = 8;

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'busybox']);
/** Programs that run the rest of their words as a command, and the options of each that take a value. */
const WRAPPERS: Readonly<Record<string, ReadonlySet<string>>> = {
  command: new Set(),
  builtin: new Set(),
  exec: new Set(['-a']),
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  time: new Set(['-f', '--format', '-o', '--output']),
  nice: new Set(['-n', '--adjustment']),
  nohup: new Set(),
  stdbuf: new Set(['-i', '-o', '-e']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  sudo: new Set(['-u', '--user', '-g', '--group', '-C', '-D', '-h', '-p', '-r', '-t', '-U']),
  doas: new Set(['-u', '-C']),
  xargs: new Set([
    '-a',
    '-d',
    '-E',
    '-e',
    '-I',
    '-i',
    '-L',
    '-l',
    '-n',
    '-P',
    '-s',
    '--arg-file',
    '--delimiter',
    '--max-args',
    '--max-procs',
    '--max-lines',
    '--replace',
  ]),
};

export function shellCommands(line: string): ShellCommands {
  const found = { commands: [] as string[][], opaque: false, nested: false, assigns: false };
  readLine(line, 0, found);
  return found;
}

type Found = { commands: string[][]; opaque: boolean; nested: boolean; assigns: boolean };

/** Reads a line into simple commands, each handed to `command` once its words are known. */
function readLine(line: string, depth: number, found: Found): void {
  if (depth > MAX_DEPTH) {
    found.opaque = true;
    return;
  }
  let words: Word[] = [];
  const end = (): void => {
    if (words.length > 0) command(words, depth, found);
    words = [];
  };
  /** Here-documents whose bodies start after the next newline. */
  const heredocs: { delimiter: string; quoted: boolean; tabs: boolean }[] = [];
  let i = 0;
  while (i < line.length) {
    const char = line[i]!;
    const next = line[i + 1];
    if (char === '\n' && heredocs.length > 0) {
      end();
      i = skipHeredocs(line, i + 1, heredocs.splice(0), depth, found);
      continue;
    }
    if (char === ' ' || char === '\t') {
      i++;
      continue;
    }
    if (char === '#' && words.length === 0) {
      // A comment, to the end of the line.
      while (i < line.length && line[i] !== '\n') i++;
      continue;
    }
    if ((char === '<' || char === '>') && next === '(') {
      // Process substitution: a command of its own; the word it stands for is a file name.
      const close = matching(line, i + 1);
      if (close === null) return void (found.opaque = true);
      found.nested = true;
      readLine(line.slice(i + 2, close), depth + 1, found);
      i = close + 1;
      continue;
    }
    const redirect = redirection(line, i);
    if (redirect !== null) {
      const heredoc = /^\d*<<(-?)$/.exec(line.slice(i, redirect));
      i = redirect;
      while (line[i] === ' ' || line[i] === '\t') i++;
      // Its target is a word (read for what it runs, then dropped); a here-document's, its delimiter.
      const start = i;
      const target = readWord(line, i, wordReader(depth, found));
      i = target.next;
      if (heredoc) heredocs.push({ delimiter: target.word.text, quoted: /['"\\]/.test(line.slice(start, i)), tabs: heredoc[1] === '-' });
      continue;
    }
    if (char === ';' || char === '\n' || char === '&' || char === '|') {
      end();
      i += (char === '&' || char === '|') && next === char ? 2 : 1;
      continue;
    }
    if (char === '(' || char === ')' || ((char === '{' || char === '}') && words.length === 0 && (next === undefined || /[\s;]/.test(next)))) {
      // A subshell or a group: what is inside runs like the rest.
      if (char === '(') found.nested = true;
      end();
      i++;
      continue;
    }
    const word = readWord(line, i, wordReader(depth, found));
    if (word.next === i) {
      found.opaque = true;
      return;
    }
    words.push(word.word);
    i = word.next;
  }
  end();
  // A here-document never closed: the shell would read what follows; nothing can be judged.
  if (heredocs.length > 0) found.opaque = true;
}

/**
 * Past the bodies of here-documents that start at `from`. A body is data for its command, but
 * an unquoted one has its `$( … )` and backticks run: those are read as commands. A body that
 * never ends makes the line opaque.
 */
function skipHeredocs(
  line: string,
  from: number,
  heredocs: readonly { delimiter: string; quoted: boolean; tabs: boolean }[],
  depth: number,
  found: Found,
): number {
  let at = from;
  for (const heredoc of heredocs) {
    for (;;) {
      if (at >= line.length) {
        found.opaque = true;
        return line.length;
      }
      const newline = line.indexOf('\n', at);
      const end = newline < 0 ? line.length : newline;
      const body = line.slice(at, end);
      at = end + 1;
      if ((heredoc.tabs ? body.replace(/^\t+/, '') : body) === heredoc.delimiter) break;
      if (!heredoc.quoted && /\$\(|`/.test(body)) readWord(`"${body.replace(/["\\]/g, '\\$&')}"`, 0, wordReader(depth, found));
    }
  }
  return at;
}

/** Hands what a word's substitutions run back to the line reader, one level deeper. */
function wordReader(depth: number, found: Found): WordReader {
  return {
    substitute: (inner) => {
      found.nested = true;
      readLine(inner, depth + 1, found);
    },
    opaque: () => {
      found.opaque = true;
    },
  };
}

/** One simple command: assignments and wrappers stripped, what it runs in turn read too. */
function command(words: readonly Word[], depth: number, found: Found): void {
  let at = 0;
  while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(words[at]!.text)) at++;
  if (at > 0) found.assigns = true;
  for (let guard = 0; at < words.length && guard < 16; guard++) {
    const head = words[at]!;
    if (!head.literal) {
      // A variable or a substitution names the program: nothing can be known of what runs.
      found.opaque = true;
      return;
    }
    const name = programName(head.text);
    const rest = words.slice(at + 1);
    if (name === 'eval') {
      if (rest.some((word) => !word.literal)) found.opaque = true;
      found.nested = true;
      readLine(rest.map((word) => word.text).join(' '), depth + 1, found);
      return;
    }
    if (SHELLS.has(name)) {
      const script = shellScript(rest);
      // A script from a variable, or from the shell's standard input (`… | bash`), is not in the line.
      if (script === 'opaque' || script === 'stdin') found.opaque = true;
      else if (script !== null) {
        found.nested = true;
        readLine(script.script, depth + 1, found);
      }
      found.commands.push([name, ...rest.map((word) => word.text)]);
      return;
    }
    const options = WRAPPERS[name];
    if (options) {
      const skipped = skipOptions(rest, options, name);
      if (skipped === null) {
        // `env -S` and its kin: a string split into a command.
        found.opaque = true;
        return;
      }
      found.commands.push([name, ...rest.map((word) => word.text)]);
      at += 1 + skipped;
      while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!.text)) at++;
      continue;
    }
    const texts = [name, ...rest.map((word) => word.text)];
    found.commands.push(texts);
    if (name === 'find') findExec(rest, depth, found);
    return;
  }
}

/** A program named by a path is taken for its name: `/bin/rm` is `rm`. */
function programName(text: string): string {
  const slash = text.lastIndexOf('/');
  return slash >= 0 ? text.slice(slash + 1) : text;
}

/** The options of a wrapper before the command it runs (with `timeout` its duration too); null when one makes the command a string. */
function skipOptions(words: readonly Word[], withValue: ReadonlySet<string>, wrapper: string): number | null {
  let at = 0;
  while (at < words.length) {
    const text = words[at]!.text;
    if (text === '--') return at + 1;
    if (!text.startsWith('-') || text === '-') break;
    if (wrapper === 'env' && /^(-S|--split-string)/.test(text)) return null;
    at += withValue.has(text) ? 2 : 1;
  }
  if (wrapper === 'env') while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!.text)) at++;
  // timeout DURATION COMMAND, nice's old -N form is an option already.
  if (wrapper === 'timeout' && at < words.length) at++;
  return at;
}

/** The script a shell is given with -c; null when it runs a file; 'stdin' when it reads its script from standard input; 'opaque' when the script is not literal. */
function shellScript(words: readonly Word[]): { readonly script: string } | 'opaque' | 'stdin' | null {
  for (let at = 0; at < words.length; at++) {
    const text = words[at]!.text;
    if (!text.startsWith('-') || text === '-') return text === '-' ? 'stdin' : null;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(text)) {
      const script = words[at + 1];
      if (!script) return 'stdin';
      return script.literal ? { script: script.text } : 'opaque';
    }
    if (/^-[A-Za-z]*s[A-Za-z]*$/.test(text)) return 'stdin';
  }
  return 'stdin';
}

/** `find … -exec cmd {} ;` (and -execdir, -ok, -okdir): cmd is a command too. */
function findExec(words: readonly Word[], depth: number, found: Found): void {
  for (let at = 0; at < words.length; at++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(words[at]!.text)) continue;
    let end = at + 1;
    while (end < words.length && words[end]!.text !== ';' && words[end]!.text !== '+') end++;
    const inner = words.slice(at + 1, end);
    if (inner.length > 0) {
      found.nested = true;
      command(inner, depth + 1, found);
    }
    at = end;
  }
}
