import { HttpHeaders } from './http-headers.js';

const UNDICI = 'NativeModule internal/deps/undici/undici';
const WEB_STREAMS = 'NativeModule internal/webstreams/readablestream';

/**
 * Keeps Node's bundled undici and its web streams unloaded in a teammate: undici's first use
 * costs a process ~11 MiB that is never given back, and Node loads it when anything reads the
 * global Headers, FormData, Request or Response; the web streams cost ~1 MiB, loaded by reading
 * the global ReadableStream. The Anthropic SDK reads three on every request: it builds the
 * headers with `new Headers()` and asks `body instanceof FormData` and `instanceof ReadableStream`.
 * So, first thing in the teammate's entry:
 * - Headers becomes HttpHeaders, the same interface in a few lines;
 * - FormData and ReadableStream stay Node's, loaded when first used (lazyClass).
 * Node's fetch still works (an MCP server over HTTP): it takes any iterable of pairs as headers.
 */
export function keepWebGlobalsUnloaded(scope: typeof globalThis, loaded: (module: string) => boolean = moduleLoaded): void {
  define(scope, 'Headers', HttpHeaders);
  lazyClass(scope, 'FormData', () => loaded(UNDICI));
  // The SDK asks `body instanceof ReadableStream` of every request's body: reading the global
  // loads Node's web streams, ~1 MiB a teammate never gives back and has no use for (http-body.ts).
  lazyClass(scope, 'ReadableStream', () => loaded(WEB_STREAMS));
}

/**
 * The global class `name`, loaded by Node only when something constructs it, extends it or reads
 * a property of it. Until Node has loaded it no instance can exist, so `instanceof` answers false
 * without loading it.
 */
function lazyClass(scope: typeof globalThis, name: string, loaded: () => boolean): void {
  const descriptor = Object.getOwnPropertyDescriptor(scope, name);
  if (!descriptor) return;
  const real = (): Constructor => (descriptor.get ? descriptor.get.call(scope) : descriptor.value) as Constructor;
  const hasInstance = (value: unknown): boolean => loaded() && value instanceof real();
  const stand: Constructor = new Proxy(function stand() {} as unknown as Constructor, {
    construct: (_target, args, newTarget) => Reflect.construct(real(), args, newTarget === stand ? real() : newTarget) as object,
    apply: (_target, self, args) => Reflect.apply(real() as unknown as (...rest: unknown[]) => unknown, self, args),
    get: (_target, key): unknown => (key === Symbol.hasInstance ? hasInstance : Reflect.get(real(), key)),
    has: (_target, key) => Reflect.has(real(), key),
  });
  define(scope, name, stand);
}

type Constructor = new (...args: unknown[]) => object;

/** Node's list of the internal modules it has loaded (undocumented, there since Node 0.x); without it, assume loaded. */
function moduleLoaded(module: string): boolean {
  const list = (process as unknown as { moduleLoadList?: unknown }).moduleLoadList;
  return !Array.isArray(list) || list.includes(module);
}

function define(scope: typeof globalThis, name: string, value: unknown): void {
  Object.defineProperty(scope, name, { value, writable: true, configurable: true, enumerable: false });
}
