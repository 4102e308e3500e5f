import { describe, expect, it } from 'vitest';
import { requireBuiltins, wrappedBuiltins } from '../../../src/platform/build/builtin-imports.js';

describe("the rewrite of a chunk's imports of builtins", () => {
  it('turns default and namespace imports of builtins into requires at the top, keeping a named part as an import', () => {
    const chunk = 'import a from"node:fs";import*as b from"node:os";import c,{d as e}from"node:path";import f from"fs";var x=a.readFileSync;';
    expect(requireBuiltins(chunk)).toEqual({
      code: 'const a=require("node:fs");const b=require("node:os");const c=require("node:path");const f=require("fs");import{d as e}from"node:path";var x=a.readFileSync;',
      rewritten: 4,
    });
  });

  it('finds the imports esbuild puts where each module starts, further down the file, and hoists them', () => {
    const chunk =
      'import{a as b}from"./chunk-X.js";var m=f(()=>{g.x=1});import h from"node:fs";var y=h.statSync;function k(){}\nimport*as p from"node:path";p.join(y);';
    expect(requireBuiltins(chunk)).toEqual({
      code: 'const h=require("node:fs");const p=require("node:path");import{a as b}from"./chunk-X.js";var m=f(()=>{g.x=1});var y=h.statSync;function k(){}\np.join(y);',
      rewritten: 2,
    });
  });

  it('leaves named imports of builtins, every import of our own chunks, import() and import.meta to esbuild', () => {
    const chunk =
      'import{readFileSync as r}from"node:fs";import{a as b}from"./chunk-X.js";import c from"./chunk-Y.js";import"./chunk-Z.js";r(b,c);var l=()=>import("node:os");import.meta.url;';
    expect(requireBuiltins(chunk)).toEqual({ code: chunk, rewritten: 0 });
  });

  it('touches nothing that does not start a statement', () => {
    const chunk = 'var help="see import b from\\"node:os\\"";var importer=1;';
    expect(requireBuiltins(chunk)).toEqual({ code: chunk, rewritten: 0 });
  });

  it('stops the build on an import it cannot read rather than guess', () => {
    expect(() => requireBuiltins('import a from"node:fs"with{type:"json"};x();')).toThrow(/cannot read the import at offset 0/);
    expect(() => requireBuiltins('import c from"node:os";import a,*as b from"node:fs";')).toThrow(/cannot read the import at offset 23/);
  });

  it("counts the getter copies esbuild's CommonJS output makes of static imports of builtins, not of import() or our chunks", () => {
    const cjs =
      'var a=require("./chunks/chunk-X.js"),b=h(require("node:fs")),c=h(require("path"),1),d=require("node:os");var l=()=>Promise.resolve().then(()=>h(require("node:crypto")));var e=h(require("./chunks/chunk-Y.js"));';
    expect(wrappedBuiltins(cjs)).toBe(2);
  });
});
