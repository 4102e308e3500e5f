import type { Logger } from '../log/logger.js';

type LogFn = (message: string, ...rest: unknown[]) => void;

/**
 * The SDK's logger, routed into pino: its retries ("retrying, N attempts remaining", "no more
 * retries left", logged at the SDK's info level) become warnings a person sees in teamd logs;
 * its per-response chatter stays at debug.
 */
export function sdkLogger(logger: Logger): { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn } {
  const detail = (rest: unknown[]) => (rest.length > 0 ? { sdk: rest } : {});
  return {
    error: (message, ...rest) => logger.error(detail(rest), `model API: ${message}`),
    warn: (message, ...rest) => logger.warn(detail(rest), `model API: ${message}`),
    info: (message, ...rest) =>
      /retrying|no more retries/.test(message) ? logger.warn(detail(rest), `model API: ${message}`) : logger.debug(detail(rest), `model API: ${message}`),
    debug: (message) => logger.debug(`model API: ${message}`),
  };
}
