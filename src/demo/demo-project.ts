import type { NewTask } from '../contracts/board-types.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

/** A small real project for the demo: a calculator library, its CLI, tests, a test run, a package. */
export const DEMO_TASKS: readonly (NewTask & { readonly key: string; readonly after?: readonly string[] })[] = [
  {
    key: 'scaffold',
    subject: 'Scaffold the calc project',
    description: `Create the folders.\n${sh('mkdir -p calc/src calc/test', 'printf \'{"name":"calc","type":"module"}\\n\' > calc/package.json')}`,
  },
  {
    key: 'library',
    after: ['scaffold'],
    subject: 'Write the calc library',
    description: `Arithmetic helpers.\n${sh(
      "printf 'export const add = (a, b) => a + b;\\nexport const mul = (a, b) => a * b;\\n' > calc/src/calc.js",
      "node -e \"import('./calc/src/calc.js').then((m) => process.stdout.write('add(2, 3) = ' + m.add(2, 3) + String.fromCharCode(10)))\"",
    )}`,
  },
  {
    key: 'cli',
    after: ['scaffold'],
    subject: 'Write the calc command line',
    description: `A CLI: node calc/src/cli.js add 2 3.\n${sh(
      'printf "import * as calc from \'./calc.js\';\\nconst [op, a, b] = process.argv.slice(2);\\nprocess.stdout.write(calc[op](Number(a), Number(b)) + String.fromCharCode(10));\\n" > calc/src/cli.js',
    )}`,
  },
  {
    key: 'tests',
    after: ['scaffold'],
    subject: 'Write the tests',
    description: `Unit tests with node:test.\n${sh(
      "printf \"import { test } from 'node:test';\\nimport assert from 'node:assert/strict';\\nimport { add, mul } from '../src/calc.js';\\ntest('add', () => assert.equal(add(2, 3), 5));\\ntest('mul', () => assert.equal(mul(4, 5), 20));\\n\" > calc/test/calc.test.js",
    )}`,
  },
  {
    key: 'test-run',
    after: ['library', 'cli', 'tests'],
    subject: 'Run the tests and try the CLI',
    description: `Everything must pass.\n${sh('node --test calc/test/', 'node calc/src/cli.js mul 6 7')}`,
  },
  {
    key: 'package',
    after: ['test-run'],
    subject: 'Package a release',
    description: `A tarball of the project.\n${sh('tar -czf calc-1.0.0.tgz calc', 'tar -tzf calc-1.0.0.tgz')}`,
  },
];
