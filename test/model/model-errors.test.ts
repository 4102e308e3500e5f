import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { classifySdkError, failureClass } from '../../src/model/model-errors.js';

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
});
