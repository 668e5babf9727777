// Lint for the library, its tests, the sample and the bench: typescript-eslint's recommended rules, with formatting
// left to Prettier (eslint-config-prettier turns off the rules that would fight it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './eslint/lib-layers.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-sample/**',
      'coverage/**',
      'node_modules/**',
      'bench/node_modules/**',
      'bench/.data/**',
      '.tmp/**',
      'test/consumer/app/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // The dashboard's browser script (lib/dashboard/browser/tsconfig.json): files of one classic script that share a
    // scope, so a function defined in one file and called in another is no unused variable. What the page shows from
    // the server is written as text, never parsed as HTML: the HTML sinks are refused here rather than left to review.
    files: ['lib/dashboard/browser/**/*.ts'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        CSS: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { vars: 'local', argsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Write text (textContent, h()), never HTML.' },
        { property: 'outerHTML', message: 'Write text (textContent, h()), never HTML.' },
        { property: 'insertAdjacentHTML', message: 'Write text (textContent, h()), never HTML.' },
        { property: 'createContextualFragment', message: 'Write text (textContent, h()), never HTML.' },
        { object: 'document', property: 'write', message: 'Write text (textContent, h()), never HTML.' },
        { object: 'document', property: 'writeln', message: 'Write text (textContent, h()), never HTML.' },
      ],
      'no-restricted-globals': ['error', 'require', 'process', 'Buffer', '__dirname', 'module', 'exports', 'global'],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    // lib/'s folders form layers (eslint/lib-layers.mjs): no folder imports one of its own layer or above.
    files: ['lib/**/*.ts'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/lib-layers': 'error' },
  },
  {
    // The two backends share code through storage/shared/ only: neither imports the other.
    files: ['lib/storage/sqlite/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/postgres/**'], message: 'Shared backend code goes to lib/storage/shared/.' }] },
      ],
    },
  },
  {
    files: ['lib/storage/postgres/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/sqlite/**'], message: 'Shared backend code goes to lib/storage/shared/.' }] },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        global: 'readonly',
        exports: 'writable',
      },
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  prettier,
);
