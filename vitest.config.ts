import { defineConfig } from 'vitest/config';

/**
 * The heavy end-to-end files (`npm run test:slow`): kill storms, 1,000-task runs, a browser,
 * network namespaces, heap limits, a prompt-injected team, an install from the tarball — each
 * wants the machine to itself (beside the main tier's files they took 70 s more, saving 48 s here).
 */
export const SLOW_TESTS = [
  'test/store/two-hosts.test.ts',
  'test/store/partition.test.ts',
  'test/store/flapping-database.test.ts',
  'test/store/files/claim-faults.test.ts',
  'test/store/files/claim-race.test.ts',
  'test/store/files/delivery-stress.test.ts',
  'test/daemon/faults.test.ts',
  'test/daemon/orphans.test.ts',
  'test/teammate/heap-bound.test.ts',
  'test/sandbox/adversary.test.ts',
  'test/packaging/pack.test.ts',
  'test/ui/ui-page.test.ts',
];

const shared = { globalSetup: ['test/global-setup.ts'], testTimeout: 60_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    projects: [
      {
        // `npm test`: every other file, two at a time (most of a test's time is spent waiting on
        // processes, timers and sockets, which two files share well on two cores).
        test: { ...shared, name: 'main', include: ['test/**/*.test.ts'], exclude: SLOW_TESTS, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        // After the others, one at a time: a storm of processes shares the machine with nothing.
        test: { ...shared, name: 'slow', include: SLOW_TESTS, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
