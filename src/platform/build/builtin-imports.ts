import { isBuiltin } from 'node:module';

/**
 * One import statement of an ES module chunk as esbuild writes it: `import a from"node:fs"`,
 * `import*as b from"node:os"`, `import c,{d as e}from"node:path"`, `import{f}from"./chunk.js"`,
 * `import"./chunk.js"`. Anchored at a statement's start: the file's, or after `;`, `}` or a line end.
 */
const IMPORT =
  /(?<=^|[;}\n])\s*import\s*(?:(?<name>[\w$]+)\s*(?:,\s*(?<named>\{[^}]*\}))?\s*from\s*|\*\s*as\s*(?<namespace>[\w$]+)\s*from\s*|(?<only>\{[^}]*\})\s*from\s*)?"(?<from>[^"]+)"\s*;/y;

/** Where a statement that looks like an import starts (not `import(` nor `import.meta`). */
const IMPORT_START = /(?<=^|[;}\n])\s*import(?:\s+[\w$]|\s*[*{"])/g;

export interface RewrittenImports {
  readonly code: string;
  /** How many default or namespace imports of builtins became `require`s. */
  readonly rewritten: number;
}

/**
 * Rewrites the default and namespace imports of Node's builtins in an ES module chunk as plain
 * `require`s at the top of the file, before esbuild turns the chunk into CommonJS.
 *
 * Why: for such an import esbuild's CommonJS output copies every export of the builtin onto a new
 * object, one getter closure each: a copy of `fs` is 104 getters, and a teammate's bundle imports
 * `fs` in 30 modules. A builtin's default export is its `module.exports`, so `require` gives the
 * same object without the copy. The requires go to the top, where the import's binding was
 * visible from (imports are hoisted; loading a builtin earlier changes nothing). Named imports and
 * imports of our own chunks are left to esbuild, which reads them off the exports.
 *
 * esbuild puts a module's imports where the module's code starts, so they are found anywhere in
 * the file, at a statement's start. Throws on an import it cannot read, so a change in esbuild's
 * output stops the build instead of shipping a bundle that behaves differently; `bundle.ts` also
 * checks the count against esbuild's own reading (`wrappedBuiltins`).
 */
export function requireBuiltins(code: string): RewrittenImports {
  const hoisted: string[] = [];
  const kept: string[] = [];
  let copied = 0;
  for (const start of code.matchAll(IMPORT_START)) {
    const at = start.index;
    IMPORT.lastIndex = at;
    const match = IMPORT.exec(code);
    const groups = match?.groups;
    if (!match || !groups) throw new Error(`cannot read the import at offset ${at} of a chunk: ${code.slice(at, at + 80).trim()}`);
    const from = groups.from!;
    const local = groups.name ?? groups.namespace;
    if (local === undefined || !isBuiltin(from)) continue;
    // The whitespace before it stays: a line end may be what ends the statement before.
    kept.push(code.slice(copied, at + match[0].length - match[0].trimStart().length));
    hoisted.push(`const ${local}=require(${JSON.stringify(from)});`);
    if (groups.named !== undefined) kept.push(`import${groups.named}from${JSON.stringify(from)};`);
    copied = IMPORT.lastIndex;
  }
  kept.push(code.slice(copied));
  return { code: hoisted.join('') + kept.join(''), rewritten: hoisted.length };
}

/**
 * How many imports of builtins esbuild's CommonJS output wraps in its interop helper
 * (`x=h(require("node:fs"))`, the getter copy above): in a chunk's output before the rewrite, as
 * many as the rewrite should make; after it, none. A dynamic `import("node:crypto")` becomes
 * `()=>h(require("node:crypto"))`, a copy made when it runs: not counted, and left as it is.
 */
export function wrappedBuiltins(cjs: string): number {
  let count = 0;
  for (const match of cjs.matchAll(/(?<=[\w$]=)[\w$]+\(require\("([^"]+)"\)(?:,\s*1)?\)/g)) if (isBuiltin(match[1]!)) count++;
  return count;
}
