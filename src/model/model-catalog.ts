import { isoTime } from '../platform/iso-time.js';
import { OFFLINE_MODEL } from '../contracts/offline-model.js';

/** The deterministic model served by the daemon (DESIGN §4): the demo's and the tests' default. */
export { OFFLINE_MODEL };

/** The model a new team uses with a real API key, and the one the README shows. */
export const DEFAULT_REAL_MODEL = 'claude-sonnet-5-5';

export interface ModelInfo {
  readonly id: string;
  readonly displayName: string;
  /** The largest max_tokens a request may ask for. */
  readonly maxOutputTokens: number;
  readonly contextWindowTokens: number;
  /** The shortest prompt prefix it caches. */
  readonly minCacheableTokens: number;
  /** The day it stops being served (the SDK's deprecation list), if announced. */
  readonly retiresOn?: string;
}

const model = (id: string, displayName: string, maxOutputTokens: number, retiresOn?: string): ModelInfo => ({
  id,
  displayName,
  maxOutputTokens,
  contextWindowTokens: 200_000,
  minCacheableTokens: id.includes('haiku') ? 2048 : 1024,
  ...(retiresOn ? { retiresOn } : {}),
});

/**
 * The model ids the offline endpoint answers for, as `GET /v1/models/{id}` does, taken from the
 * SDK's list of models (with its deprecation dates) at the version we pin.
 */
export const KNOWN_MODELS: readonly ModelInfo[] = [
  model(OFFLINE_MODEL, 'teamd offline model', 64_000),
  model('claude-opus-5-5', 'Claude Opus 5.5', 64_000),
  model('claude-sonnet-5-5', 'Claude Sonnet 5.5', 64_000),
  model('claude-haiku-5-5', 'Claude Haiku 5.5', 64_000),
  model('claude-opus-5', 'Claude Opus 5', 64_000),
  model('claude-sonnet-5', 'Claude Sonnet 5', 64_000),
  model('claude-opus-4-8', 'Claude Opus 4.8', 64_000),
  model('claude-opus-4-7', 'Claude Opus 4.7', 64_000),
  model('claude-opus-4-6', 'Claude Opus 4.6', 64_000),
  model('claude-sonnet-4-6', 'Claude Sonnet 4.6', 64_000),
  model('claude-haiku-4-5', 'Claude Haiku 4.5', 64_000),
  model('claude-haiku-4-5-20251001', 'Claude Haiku 4.5', 64_000),
  model('claude-opus-4-5', 'Claude Opus 4.5', 64_000, '2027-01-22'),
  model('claude-opus-4-5-20251101', 'Claude Opus 4.5', 64_000, '2027-01-22'),
  model('claude-sonnet-4-5', 'Claude Sonnet 4.5', 64_000, '2026-11-30'),
  model('claude-sonnet-4-5-20250929', 'Claude Sonnet 4.5', 64_000, '2026-11-30'),
];

/** A model still served on `now`, or null for an unknown or retired id. */
export function servedModel(id: string, now: Date): ModelInfo | null {
  const info = KNOWN_MODELS.find((m) => m.id === id);
  if (!info) return null;
  if (info.retiresOn && isoTime(now).slice(0, 10) >= info.retiresOn) return null;
  return info;
}
