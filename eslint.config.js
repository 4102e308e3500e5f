// The linter of .ci/run: typescript-eslint's recommended type-checked rules over src, workers,
// bench and test (formatting is Prettier's job: npm run format:check).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test/fixtures/', 'eslint.config.js', 'vitest.config.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Tools and handlers implement async interfaces; many need no await and stay async for one shape.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/platform/iso-time.ts'],
    rules: {
      // V8 loads ICU's time zone data for it, ~0.9 MiB per process: src/platform/iso-time.ts says why.
      'no-restricted-properties': ['error', { property: 'toISOString', message: 'use isoTime() from src/platform/iso-time.ts' }],
    },
  },
  {
    // The dashboard's page runs in a browser, as plain JavaScript: the recommended rules, without types.
    files: ['src/ui/page/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'fetch', 'EventSource', 'Node', 'requestAnimationFrame', 'performance', 'setTimeout', 'clearTimeout', 'console'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
  {
    // Tests read JSON printed by real processes (JSON.parse gives any) and assert on it directly.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
