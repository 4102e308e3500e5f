import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { classifySdkError, failureClass, retryAfterMs } from '../../src/model/model-errors.js';

const headers = new Headers();

describe('classifySdkError', () => {
  it("a 404 with the API's not_found_error is an unknown model", () => {
    const error = Anthropic.APIError.generate(404, { type: 'error', error: { type: 'not_found_error', message: 'model: claude-x' } }, undefined, headers);
    const classified = classifySdkError(Anthropic, error, 'claude-x');
    expect(classified.kind).toBe('model_not_found');
    expect(classified.message).toBe('unknown model claude-x (404: model: claude-x); teamd spawn it again with --model and a current model id');
    expect(failureClass(classified)).toBe('fatal');
  });

  it('a bare 404 (no API error body: a wrong address or a gateway) points at ANTHROPIC_BASE_URL, not the model', () => {
    const error = Anthropic.APIError.generate(404, undefined, 'Not Found', headers);
    const classified = classifySdkError(Anthropic, error, 'claude-x');
    expect(classified.message).toMatch(/^the model API's address answered 404 without the API's error \(.*\); check ANTHROPIC_BASE_URL$/);
    expect(classified.message).not.toContain('unknown model');
    expect(failureClass(classified)).toBe('fatal');
  });

  it('after the retries, 408 and 409 are transient; 402 stops the teammate like a refused key', () => {
    for (const status of [408, 409]) {
      const error = Anthropic.APIError.generate(status, { type: 'error', error: { type: 'api_error', message: 'later' } }, undefined, headers);
      expect(failureClass(classifySdkError(Anthropic, error, 'claude-x'))).toBe('transient');
    }
    const unpaid = Anthropic.APIError.generate(402, { type: 'error', error: { type: 'billing_error', message: 'no credit' } }, undefined, headers);
    const classified = classifySdkError(Anthropic, unpaid, 'claude-x');
    expect(failureClass(classified)).toBe('fatal');
    expect(classified.message).toMatch(/^the API account cannot pay for calls \(402: no credit\)/);
  });

  it('a bare SDK error is cut-off answer only when the API had answered 2xx; before that it is not guessed at', () => {
    const cut = new Anthropic.AnthropicError('terminated');
    expect(classifySdkError(Anthropic, cut, 'claude-x', { answerBegan: true })).toMatchObject({ kind: 'connection', midAnswer: true });
    expect(classifySdkError(Anthropic, cut, 'claude-x')).toMatchObject({ kind: 'other', midAnswer: false });
  });

  it("keeps the API's retry-after of the last answer: milliseconds, seconds or an HTTP date; nothing when absent, bad, past or over an hour", () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const h = (entries: Record<string, string>) => new Headers(entries);
    expect(retryAfterMs(h({ 'retry-after-ms': '1500.2' }), now)).toBe(1501);
    expect(retryAfterMs(h({ 'retry-after': '90' }), now)).toBe(90_000);
    expect(retryAfterMs(h({ 'retry-after': 'Sat, 28 Nov 2026 12:02:00 GMT' }), now)).toBe(120_000);
    for (const bad of [
      {} as Record<string, string>,
      { 'retry-after': 'soon' },
      { 'retry-after': '-3' },
      { 'retry-after': 'Sat, 28 Nov 2026 11:00:00 GMT' },
      { 'retry-after': '7200' },
    ])
      expect(retryAfterMs(h(bad), now)).toBeUndefined();
    const limited = Anthropic.APIError.generate(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      undefined,
      h({ 'retry-after': '90' }),
    );
    expect(classifySdkError(Anthropic, limited, 'claude-x', { now })).toMatchObject({ kind: 'rate_limited', retryAfterMs: 90_000 });
    const overloaded = Anthropic.APIError.generate(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, h({}));
    expect(classifySdkError(Anthropic, overloaded, 'claude-x', { now }).retryAfterMs).toBeUndefined();
  });
});
