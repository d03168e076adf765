// Lint rules chosen to catch real bugs (promises nobody awaits, `any` leaking through, switches that
// miss a case), not style: formatting is Prettier's (docs/architecture.md says why it is not checked yet).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // web/pay.js is esbuild's bundle of web/pay/, which is linted instead.
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'demo/', 'web/pay.js'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test runs and awaits what these declare; the promise they return is for nesting only.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
      // Cosmetic: a redundant assertion is harmless, and removing them all would only churn the tree.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    // Only in src/: a test's `let x: T` is assigned in before() and may be undefined in after() when
    // before() failed, so its `x?.close()` guards are right and the rule would call them needless.
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-unnecessary-condition': 'error' },
  },
  {
    // A test reads parsed response bodies (`any`) field by field, and the assertion on each field is
    // the check; typing every body would restate the wire shapes once more.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
  },
  {
    // The tracker page's modules run in the browser, unbundled; the pay page's (web/pay/) are bundled by esbuild.
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'navigator',
          'history',
          'location',
          'fetch',
          'Node',
          'TextEncoder',
          'URLSearchParams',
          'Blob',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
