import { TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { ModelClient } from '../contracts/model.js';
import { OFFLINE_KEY_ENV, OFFLINE_URL_ENV } from '../contracts/offline-model.js';
import { createAnthropicClient } from '../model/model-client.js';
import { servedModel } from '../model/model-catalog.js';

/** A model we do not know gets a cap every current model allows. */
const UNKNOWN_MODEL_OUTPUT_CAP = 32_000;

export interface TeammateModel {
  readonly client: ModelClient;
  /** The most output tokens the model allows: maxTokens is never set above it. */
  readonly outputCap: number;
  /** maxTokens as the settings have it, within the cap. */
  readonly maxTokens: number;
}

/**
 * The teammate's model client: the daemon's offline endpoint (its URL and key in TEAMD_
 * variables) or the real API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), through the same SDK code.
 */
export function teammateModel(options: {
  readonly model: string;
  readonly teammate: string;
  readonly env: NodeJS.ProcessEnv;
  readonly settings: { readonly maxTokens: number; readonly modelStallMs: number };
  readonly logger: Logger;
  readonly extraCaFile: string | null;
}): TeammateModel {
  const { model, env, settings, logger } = options;
  const offline = model === 'offline';
  const client = createAnthropicClient({
    model,
    apiKey: requireEnv(env, offline ? OFFLINE_KEY_ENV : 'ANTHROPIC_API_KEY'),
    baseURL: offline ? requireEnv(env, OFFLINE_URL_ENV) : env.ANTHROPIC_BASE_URL,
    teammate: options.teammate,
    logger,
    stallMs: settings.modelStallMs,
    extraCaFile: options.extraCaFile,
  });
  const outputCap = servedModel(model, new Date())?.maxOutputTokens ?? UNKNOWN_MODEL_OUTPUT_CAP;
  if (settings.maxTokens > outputCap)
    logger.warn({ maxTokens: settings.maxTokens, cap: outputCap }, `maxTokens is over what ${model} allows; using ${outputCap}`);
  // Never more than the model allows: a maxTokens set too high would have every request refused.
  return { client, outputCap, maxTokens: Math.min(settings.maxTokens, outputCap) };
}

function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new TeamdError('USAGE', `${name} is not set for this teammate (the daemon passes it; for a real model, export it before teamd start)`);
  return value;
}
