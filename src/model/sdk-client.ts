import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import { Models } from '@anthropic-ai/sdk/resources/models';

/**
 * The SDK's client with the two resources teamd calls: messages (a teammate's turns) and models
 * (checking a model id before a spawn). The SDK's `Anthropic` is this base with every resource
 * attached, beta, files, skills and organization among them; built from the SDK's own
 * `@anthropic-ai/sdk/client` export instead, a teammate loads and keeps a third of the code:
 * the bundle's SDK chunk is 211 KB instead of 622 KB (docs/architecture.md, "Scale").
 * Requests, retries, streaming and the error classes (the statics `classifySdkError` reads)
 * are the base's, unchanged.
 */
export class SdkClient extends BaseAnthropic {
  readonly messages: Messages = new Messages(this);
  readonly models: Models = new Models(this);
}
