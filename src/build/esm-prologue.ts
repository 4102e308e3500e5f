import { isBuiltin } from 'node:module';

/**
 * One statement of the import block esbuild puts at the top of an ES module chunk:
 * `import a from"node:fs"`, `import*as b from"node:os"`, `import c,{d as e}from"node:path"`,
 * `import{f}from"./chunk.js"`, `import"./chunk.js"`.
 */
const IMPORT =
  /\s*import\s*(?:(?<name>[\w$]+)\s*(?:,\s*(?<named>\{[^}]*\}))?\s*from\s*|\*\s*as\s*(?<namespace>[\w$]+)\s*from\s*|(?<only>\{[^}]*\})\s*from\s*)?"(?<from>[^"]+)"\s*;/y;

/**
 * Rewrites the default and namespace imports of Node's builtins in a chunk's import block as
 * plain `require`s, before esbuild turns the chunk into CommonJS.
 *
 * Why: for such an import esbuild's CommonJS output copies every export of the builtin onto a new
 * object, one getter closure each (~3,700 in a teammate: +0.5 MiB of heap). A builtin's default
 * export is its `module.exports`, so `require` gives the same object without the copy. Named
 * imports and imports of our own chunks are left to esbuild, which reads them off the exports.
 *
 * Throws on an import it cannot read, so a change in esbuild's output stops the build instead of
 * shipping a bundle that behaves differently.
 */
export function requireBuiltinDefaults(code: string): string {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const rest = code.slice(at).trimStart();
    if (!/^import(?:\s+[\w$]|\s*[*{"])/.test(rest)) break;
    IMPORT.lastIndex = at;
    const match = IMPORT.exec(code);
    const groups = match?.groups;
    if (!match || !groups) throw new Error(`cannot read the import at offset ${at} of a chunk: ${rest.slice(0, 80)}`);
    const from = groups.from!;
    const local = groups.name ?? groups.namespace;
    if (local !== undefined && isBuiltin(from)) {
      out.push(`const ${local}=require(${JSON.stringify(from)});`);
      if (groups.named !== undefined) out.push(`import${groups.named}from${JSON.stringify(from)};`);
    } else {
      out.push(match[0].trim());
    }
    at = IMPORT.lastIndex;
  }
  return out.join('') + code.slice(at);
}
