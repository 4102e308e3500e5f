import type { HttpBody } from './http-body.js';
import { HttpHeaders } from './http-headers.js';

/** An answer's body: ours (http-body.ts), or a web stream for a caller that asked for one. */
export type ResponseBody = HttpBody | ReadableStream<Uint8Array>;

export interface HttpResponseInit {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HttpHeaders;
  readonly url: string;
}

/** The part of fetch's `Response` the SDK reads: status, headers, a streamed body, text() and json(). */
export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HttpHeaders;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;

  constructor(
    readonly body: ResponseBody | null,
    init: HttpResponseInit,
  ) {
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.url = init.url;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.used || (this.body?.locked ?? false);
  }

  /** The same answer with another body (as a web stream, for webFetch). */
  withBody(body: ResponseBody | null): HttpResponse {
    return new HttpResponse(body, this);
  }

  clone(): HttpResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: the body has already been read');
    if (!this.body) return new HttpResponse(null, this);
    const [mine, theirs] = this.body.tee();
    (this as { body: ResponseBody | null }).body = mine;
    return new HttpResponse(theirs, this);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  private async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError('Response: the body has already been read');
    this.used = true;
    if (!this.body) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.body) {
      chunks.push(chunk);
      size += chunk.byteLength;
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    return all;
  }
}
