import type { ContentBlock, ModelClient, ModelRequest, ModelResponse, StopReason } from '../../src/contracts/model.js';

type Scripted = ModelResponse | Error | ((request: ModelRequest) => ModelResponse);

/** A strict scripted model: each call takes the next step, and running out fails loudly. */
export class FakeModel implements ModelClient {
  readonly requests: ModelRequest[] = [];

  constructor(private readonly script: Scripted[]) {}

  async create(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(structuredClone(request));
    const step = this.script.shift();
    if (step === undefined)
      throw new Error(
        `no more scripted responses; got request with ${request.messages.length} messages: ${JSON.stringify(request.messages.at(-1)).slice(0, 300)}`,
      );
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(request) : step;
  }
}

export const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function reply(content: ContentBlock[], stopReason: StopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'): ModelResponse {
  return { content, stopReason, usage };
}

export const text = (value: string): ContentBlock => ({ type: 'text', text: value });
export const use = (id: string, name: string, input: unknown): ContentBlock => ({ type: 'tool_use', id, name, input });
