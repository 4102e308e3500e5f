/**
 * A tool's input schema as the Messages API takes it: JSON Schema draft 2020-12. Servers built
 * on older converters declare draft-07 (`"$schema": "http://json-schema.org/draft-07/schema#"`,
 * `definitions`, array-form `items`, `dependencies`), which the API refuses with a 400 on every
 * request that carries the tool. This rewrites those constructs into their 2020-12 spelling,
 * everywhere in the schema, and drops `$schema` (the API reads the schema as 2020-12 anyway).
 */

/** Nested schemas deeper than this are left as they are (a schema is small; a cycle cannot occur in JSON). */
const MAX_DEPTH = 64;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function toDraft2020(schema: Record<string, unknown>): Record<string, unknown> {
  return rewrite(schema as Json, 0) as Record<string, unknown>;
}

function rewrite(node: Json, depth: number): Json {
  if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => rewrite(item, depth + 1));
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if (key === 'definitions' && isObject(value)) {
      out.$defs = { ...(isObject(out.$defs) ? out.$defs : {}), ...(rewrite(value, depth + 1) as { [key: string]: Json }) };
      continue;
    }
    if (key === '$defs' && isObject(value)) {
      out.$defs = { ...(rewrite(value, depth + 1) as { [key: string]: Json }), ...(isObject(out.$defs) ? out.$defs : {}) };
      continue;
    }
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/definitions\//, '#/$defs/');
      continue;
    }
    if (key === 'items' && Array.isArray(value)) {
      // draft-07's tuple form: its items are 2020-12's prefixItems; additionalItems becomes items.
      out.prefixItems = value.map((item) => rewrite(item, depth + 1));
      if ('additionalItems' in node) out.items = rewrite(node.additionalItems, depth + 1);
      continue;
    }
    if (key === 'additionalItems' && Array.isArray(node.items)) continue;
    if (key === 'dependencies' && isObject(value)) {
      for (const [property, dependency] of Object.entries(value)) {
        const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
        const into = isObject(out[target]) ? out[target] : {};
        into[property] = Array.isArray(dependency) ? dependency : rewrite(dependency, depth + 1);
        out[target] = into;
      }
      continue;
    }
    out[key] = rewrite(value, depth + 1);
  }
  return out;
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** Why a schema is not draft 2020-12 as the API reads it (the offline stand-in refuses it as the API does); null when it is. */
export function notDraft2020(schema: unknown, depth = 0): string | null {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== 'object') return null;
  if (Array.isArray(schema)) {
    for (const item of schema) {
      const why = notDraft2020(item, depth + 1);
      if (why) return why;
    }
    return null;
  }
  const node = schema as Record<string, unknown>;
  if (typeof node.$schema === 'string' && !node.$schema.includes('2020-12')) return `it declares ${node.$schema}`;
  const types: unknown[] = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : [];
  const unknown = types.find((type) => typeof type !== 'string' || !JSON_TYPES.includes(type));
  if (unknown !== undefined) return `"type": ${JSON.stringify(unknown)} is not a JSON Schema type`;
  if ('definitions' in node) return 'it uses draft-07 "definitions" (2020-12: "$defs")';
  if (Array.isArray(node.items)) return 'it uses draft-07 array-form "items" (2020-12: "prefixItems")';
  if ('dependencies' in node) return 'it uses draft-07 "dependencies"';
  for (const value of Object.values(node)) {
    const why = notDraft2020(value, depth + 1);
    if (why) return why;
  }
  return null;
}
