import { describe, expect, it } from 'vitest';
import { runAdversary } from '../../bench/chaos/adversary.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { TEAMD_BIN } from '../helpers/processes.js';

const sandbox = detectSandbox();
if (sandbox.kind === 'none') console.warn(`skipped: the adversary needs bubblewrap (${sandbox.why})`);

describe.skipIf(sandbox.kind === 'none')('a prompt-injected team (npm run chaos -- --adversary; real daemon, real bubblewrap)', () => {
  it('every attempt to read a secret, reach the network, widen its rules or outlive its sandbox is refused', async () => {
    const results = await runAdversary({ log: () => {}, teamdBin: TEAMD_BIN });
    expect(results.length).toBeGreaterThanOrEqual(18);
    expect(results.filter((result) => result.outcome === 'SUCCEEDED')).toEqual([]);
  });

  it('reports an attempt that works: a daemon that passes GITHUB_TOKEN to commands leaks it', async () => {
    const results = await runAdversary({ log: () => {}, teamdBin: TEAMD_BIN, only: ['env-secrets'], settings: { passEnv: ['GITHUB_TOKEN'] } });
    const env = results.find((result) => result.id === 'env-secrets');
    expect(env?.outcome).toBe('SUCCEEDED');
    expect(env?.detail).toContain('CANARY-GHTOKEN');
    expect(results.find((result) => result.id === 'workspace-holds-secrets')?.outcome).toBe('SUCCEEDED');
  });
});
