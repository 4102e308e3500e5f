import { describe, expect, it } from 'vitest';
import { notDraft2020, toDraft2020 } from '../../src/mcp/schema-2020.js';

describe("an MCP tool's input schema as the Messages API reads it (draft 2020-12)", () => {
  it("rewrites draft-07's $schema, definitions and $ref, tuple items, additionalItems and dependencies, at any depth", () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        a: { $ref: '#/definitions/a' },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
        list: { type: 'array', items: { $ref: '#/definitions/a' } },
        nested: { type: 'object', definitions: { b: { type: 'string' } }, properties: { b: { $ref: '#/definitions/b' } } },
      },
      dependencies: { a: ['pair'], list: { required: ['nested'] } },
      definitions: { a: { type: 'string' } },
    };
    const converted = toDraft2020(draft7);
    expect(converted).toEqual({
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/a' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        list: { type: 'array', items: { $ref: '#/$defs/a' } },
        nested: { type: 'object', $defs: { b: { type: 'string' } }, properties: { b: { $ref: '#/$defs/b' } } },
      },
      dependentRequired: { a: ['pair'] },
      dependentSchemas: { list: { required: ['nested'] } },
      $defs: { a: { type: 'string' } },
    });
    expect(notDraft2020(draft7)).toBe('it declares http://json-schema.org/draft-07/schema#');
    expect(notDraft2020(converted)).toBeNull();
    // A 2020-12 schema is left as it was (its $schema aside).
    const modern = { type: 'object', properties: { x: { type: 'array', prefixItems: [{ type: 'string' }] } }, $defs: { y: { type: 'number' } } };
    expect(toDraft2020({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...modern })).toEqual(modern);
  });
});
