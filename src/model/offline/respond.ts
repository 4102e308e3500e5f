import type http from 'node:http';
import type { OfflineBlock } from './offline-types.js';

export interface OfflineMessage {
  readonly id: string;
  readonly model: string;
  readonly content: readonly OfflineBlock[];
  readonly stop_reason: string;
  readonly usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

export interface StreamShape {
  /** The last tool call's input JSON stops halfway (the output limit hit inside it). */
  readonly truncateLastToolUse?: boolean;
  /** Start the answer, then send nothing more (the connection stays open until the client gives up). */
  readonly stall?: boolean;
  /** Start the answer (its first text block, if any), then an error event, and end the stream: no message_stop. */
  readonly streamError?: 'overloaded_error' | 'api_error';
  /** Start the answer (its first text block, if any), then reset the connection, or end the stream without message_stop. */
  readonly cut?: 'reset' | 'end';
}

/** A whole Messages API answer as one JSON body (a request without `stream`). */
export function sendJsonMessage(res: http.ServerResponse, message: OfflineMessage): void {
  sendJson(res, 200, { type: 'message', role: 'assistant', stop_sequence: null, ...message });
}

/** The same answer as the API streams it: server-sent events, one content block at a time. */
export function streamMessage(res: http.ServerResponse, message: OfflineMessage, shape: StreamShape = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId() });
  const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', {
    message: {
      id: message.id,
      type: 'message',
      role: 'assistant',
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: 1 },
    },
  });
  if (shape.stall) {
    event('ping', {});
    return;
  }
  if (shape.streamError || shape.cut) {
    const first = message.content[0];
    if (first?.type === 'text') {
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: first.text } });
    }
    if (shape.cut === 'reset') {
      // What was written reaches the client first; then the connection goes, mid-answer.
      res.socket?.end(() => res.socket?.destroy());
      return;
    }
    if (shape.streamError)
      event('error', { error: { type: shape.streamError, message: shape.streamError === 'overloaded_error' ? 'Overloaded' : 'Internal server error' } });
    res.end();
    return;
  }
  for (const [index, block] of message.content.entries()) {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of chunks(block.text, 64)) event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      let json = JSON.stringify(block.input);
      if (shape.truncateLastToolUse && index === message.content.length - 1) json = json.slice(0, Math.max(1, Math.floor(json.length / 2)));
      for (const piece of chunks(json, 64)) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index });
  }
  event('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  event('message_stop', {});
  res.end();
}

/** An error in the API's shape; `retry` headers (retry-after, retry-after-ms) make it one the SDK retries. */
export function sendApiError(res: http.ServerResponse, status: number, type: string, message: string, retry: Record<string, string> | null = null): void {
  sendJson(res, status, { type: 'error', error: { type, message } }, retry ? { ...retry, 'x-should-retry': 'true' } : { 'x-should-retry': 'false' });
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': requestId(), ...headers });
  res.end(text);
}

function requestId(): string {
  return `req_offline_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

function chunks(text: string, size: number): string[] {
  if (text.length === 0) return [''];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
