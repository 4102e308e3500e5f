import { describe, expect, it } from 'vitest';
import { requireBuiltinDefaults } from '../../src/build/esm-prologue.js';

describe("the rewrite of a chunk's imports of builtins", () => {
  it('turns default and namespace imports of builtins into require, keeping a named part as an import', () => {
    const chunk = 'import a from"node:fs";import*as b from"node:os";import c,{d as e}from"node:path";import f from"fs";var x=a.readFileSync;';
    expect(requireBuiltinDefaults(chunk)).toBe(
      'const a=require("node:fs");const b=require("node:os");const c=require("node:path");import{d as e}from"node:path";const f=require("fs");var x=a.readFileSync;',
    );
  });

  it('leaves named imports of builtins, and every import of our own chunks, to esbuild', () => {
    const chunk = 'import{readFileSync as r}from"node:fs";import{a as b}from"./chunk-X.js";import c from"./chunk-Y.js";import"./chunk-Z.js";r(b,c);';
    expect(requireBuiltinDefaults(chunk)).toBe(chunk);
  });

  it('reads only the import block at the top: text that looks like an import further down stays as it is', () => {
    const chunk = 'import a from"node:fs";\nvar help="import b from\\"node:os\\"";import("./late.js");';
    expect(requireBuiltinDefaults(chunk)).toBe('const a=require("node:fs");\nvar help="import b from\\"node:os\\"";import("./late.js");');
    expect(requireBuiltinDefaults('var importer=1;import a from"node:fs";')).toBe('var importer=1;import a from"node:fs";');
  });

  it('stops the build on an import it cannot read rather than guess', () => {
    expect(() => requireBuiltinDefaults('import a from"node:fs"with{type:"json"};x();')).toThrow(/cannot read the import at offset 0/);
    expect(() => requireBuiltinDefaults('import c from"node:os";import a,*as b from"node:fs";')).toThrow(/cannot read the import at offset 23/);
  });
});
