import { HttpHeaders } from './http-headers.js';

const UNDICI = 'NativeModule internal/deps/undici/undici';

/**
 * Keeps Node's bundled undici unloaded in a teammate: its first use costs a process ~11 MiB that
 * is never given back, and Node loads it when anything reads the global Headers, FormData,
 * Request or Response. The Anthropic SDK reads two on every request: it builds the headers with
 * `new Headers()` and asks `body instanceof FormData`. So, first thing in the teammate's entry:
 * - Headers becomes HttpHeaders, the same interface in a few lines;
 * - FormData stays Node's, loaded when first constructed; until undici is loaded no FormData can
 *   exist, so `instanceof` answers false without loading it.
 * Node's fetch still works (an MCP server over HTTP): it takes any iterable of pairs as headers.
 */
export function keepUndiciUnloaded(scope: typeof globalThis, loaded: () => boolean = undiciLoaded): void {
  define(scope, 'Headers', HttpHeaders);
  const formData = Object.getOwnPropertyDescriptor(scope, 'FormData');
  if (!formData) return;
  const real = (): typeof FormData => (formData.get ? formData.get.call(scope) : formData.value) as typeof FormData;
  const lazy = function FormData(...args: unknown[]) {
    return new (real() as new (...rest: unknown[]) => object)(...args);
  };
  Object.defineProperty(lazy, Symbol.hasInstance, {
    value: (value: unknown): boolean => loaded() && value instanceof real(),
  });
  define(scope, 'FormData', lazy);
}

/** Node's list of the internal modules it has loaded (undocumented, there since Node 0.x); without it, assume loaded. */
function undiciLoaded(): boolean {
  const list = (process as unknown as { moduleLoadList?: unknown }).moduleLoadList;
  return !Array.isArray(list) || list.includes(UNDICI);
}

function define(scope: typeof globalThis, name: string, value: unknown): void {
  Object.defineProperty(scope, name, { value, writable: true, configurable: true, enumerable: false });
}
