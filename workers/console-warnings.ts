import type { Logger } from '../src/log/logger.js';

const MAX_DISTINCT = 200;

/**
 * The SDK warns through console.warn on every call with a deprecated model, which a teammate's
 * stderr would copy into the daemon log call after call: each distinct warning goes to the
 * teammate's own log once instead. Only this entry folder touches `console`.
 */
export function routeConsoleWarnings(target: Console, logger: Logger): void {
  const seen = new Set<string>();
  target.warn = (...args: unknown[]) => {
    const text = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
    if (seen.has(text) || seen.size >= MAX_DISTINCT) return;
    seen.add(text);
    logger.warn({ once: true }, text);
  };
}
