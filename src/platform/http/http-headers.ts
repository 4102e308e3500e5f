/** A name or value as HTTP/1.1 allows it (RFC 9110 token; field value without CR, LF or NUL). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[^\0\r\n]*$/;

export type HttpHeadersInit = Iterable<readonly [string, string]> | Record<string, string> | { entries(): Iterable<[string, string]> };

/**
 * The fetch `Headers` interface, for a teammate's model calls: the same case-insensitive names,
 * comma-joined repeats and sorted iteration. It exists to keep Node's bundled undici unloaded —
 * its first use (any of fetch, Headers, Request, Response) costs a process ~11 MiB, and the SDK
 * builds every request's headers with the global `Headers` (see web-globals.ts).
 */
export class HttpHeaders {
  private readonly fields = new Map<string, string>();
  private readonly cookies: string[] = [];

  constructor(init?: HttpHeadersInit | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') throw new TypeError('Headers: expected an object, an array of pairs or Headers');
    for (const pair of pairsOf(init)) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError('Headers: each header must be a [name, value] pair');
      this.append(String(pair[0]), String(pair[1]));
    }
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    if (key === 'set-cookie') this.cookies.push(text);
    const existing = this.fields.get(key);
    this.fields.set(key, existing === undefined ? text : `${existing}, ${text}`);
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    if (key === 'set-cookie') this.cookies.splice(0, this.cookies.length, text);
    this.fields.set(key, text);
  }

  get(name: string): string | null {
    return this.fields.get(checkedName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.fields.has(checkedName(name));
  }

  delete(name: string): void {
    const key = checkedName(name);
    if (key === 'set-cookie') this.cookies.length = 0;
    this.fields.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.cookies];
  }

  *entries(): IterableIterator<[string, string]> {
    for (const key of [...this.fields.keys()].sort()) yield [key, this.fields.get(key)!];
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: HttpHeaders) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

function pairsOf(init: object): Iterable<unknown> {
  if (Symbol.iterator in init) return init as Iterable<unknown>;
  // Another Headers implementation (undici's, when something else loaded it) iterates by entries().
  if (typeof (init as { entries?: unknown }).entries === 'function') return (init as { entries(): Iterable<unknown> }).entries();
  return Object.entries(init as Record<string, unknown>);
}

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: ${JSON.stringify(text)} is not a valid header name`);
  return text.toLowerCase();
}

function checkedValue(value: string): string {
  // Leading and trailing whitespace is not part of a field value (RFC 9110 5.5), as in fetch.
  const text = String(value).replace(/^[\t ]+|[\t ]+$/g, '');
  if (!FIELD_VALUE.test(text)) throw new TypeError('Headers: a header value may not contain CR, LF or NUL');
  return text;
}
