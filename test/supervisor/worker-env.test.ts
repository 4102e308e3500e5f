import { describe, expect, it } from 'vitest';
import { workerEnvFor, WORKER_OF_ENV } from '../../src/supervisor/worker-env.js';

describe('workerEnvFor', () => {
  it("sets glibc's malloc arenas and fixed thresholds for a teammate, and marks it with the state folder", () => {
    const env = workerEnvFor({ PATH: '/usr/bin' }, 'offline', '/srv/team/.team');
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '131072',
      [WORKER_OF_ENV]: '/srv/team/.team',
    });
  });

  it('keeps the malloc settings a person gave the daemon', () => {
    const env = workerEnvFor({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '1048576', MALLOC_TRIM_THRESHOLD_: '0' }, 'claude-sonnet-5-5', '/t');
    expect(env).toMatchObject({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '1048576', MALLOC_TRIM_THRESHOLD_: '0' });
  });

  it('gives an offline teammate no Anthropic credentials, and a real one its own', () => {
    const base = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: 'http://x' };
    expect(Object.keys(workerEnvFor(base, 'offline', '/t')).filter((k) => k.startsWith('ANTHROPIC_'))).toEqual([]);
    expect(workerEnvFor(base, 'claude-sonnet-5-5', '/t')).toMatchObject(base);
  });
});
