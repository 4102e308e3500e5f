import { TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { DEFAULT_REAL_MODEL, OFFLINE_MODEL } from './model-catalog.js';
import { sdkLogger } from './sdk-logger.js';

export interface ModelCheckOptions {
  readonly apiKey: string;
  readonly baseURL?: string | undefined;
  readonly logger: Logger;
}

/**
 * Asks the API whether it serves a model id (`GET /v1/models/{id}`) before a teammate is
 * spawned with it. An unknown id or a refused key is refused here, with what to do; when the
 * API cannot be asked (down, unreachable, or a gateway that serves only `POST /v1/messages` and
 * answers the models route with a bare 404), the spawn goes ahead and the teammate's own calls
 * decide: only the API's own `not_found_error` says the model is unknown.
 */
export async function checkModelId(model: string, options: ModelCheckOptions): Promise<void> {
  if (model === OFFLINE_MODEL) return;
  const A = (await import('./sdk-client.js')).SdkClient;
  const client = new A({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    // Within the CLI's 30 s wait for the daemon's answer, whatever the network does.
    maxRetries: 1,
    timeout: 8_000,
    logger: sdkLogger(options.logger),
    logLevel: 'info',
  });
  try {
    await client.models.retrieve(model);
  } catch (error) {
    if (error instanceof A.NotFoundError && error.type === 'not_found_error')
      throw new TeamdError(
        'USAGE',
        `unknown model "${model}": the API does not serve it; use a current model id (such as ${DEFAULT_REAL_MODEL}) or --model offline`,
      );
    if (error instanceof A.AuthenticationError)
      throw new TeamdError(
        'USAGE',
        `the API key was refused when checking model "${model}": fix ANTHROPIC_API_KEY in the daemon's environment, then teamd stop; teamd start`,
      );
    if (error instanceof A.PermissionDeniedError) throw new TeamdError('USAGE', `the API key may not use model "${model}": use another model or key`);
    options.logger.warn(
      { err: error, model, baseURL: options.baseURL },
      error instanceof A.NotFoundError
        ? "the API has no models route (a 404 without its error body: a gateway or proxy?); spawning anyway, the teammate's calls will tell"
        : 'could not ask the API about the model id; spawning anyway',
    );
  }
}
