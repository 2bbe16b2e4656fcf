import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { LAYERS, layerZones } from './scripts/layers.mjs';
import { importCircles } from './scripts/importCircles.mjs';

/** How import-x resolves imports (the tsconfig's paths: `chatflux` → src/), for the library's and the gateway's files. */
const importSettings = {
  ...importX.flatConfigs.typescript.settings,
  'import-x/resolver': undefined,
  'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
};

export default tseslint.config(
  { ignores: ['dist/**', 'gateway/dist/**', 'docs/**', 'coverage/**', 'node_modules/**', 'bench/.tmp/**', 'gateway/src/public/**', 'test/examples/.readme-snippets-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', global: 'readonly', globalThis: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [{ group: ['rxjs/internal/*'], message: 'Use the public rxjs API.' }] }],
    },
  },
  // The layers of docs/ARCHITECTURE.md: each folder of src/ imports only the folders below it (scripts/layers.mjs),
  // and no module imports itself through a circle, type-only imports included (import-x/no-cycle skips those;
  // chatflux/no-type-import-cycle, scripts/importCircles.mjs, reports the circles a type-only import closes).
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, chatflux: importCircles },
    settings: importSettings,
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones(LAYERS) }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'chatflux/no-type-import-cycle': 'error',
    },
  },
  // The gateway is a package of its own: it reaches the library only through its public entry points (`chatflux`,
  // `chatflux/node`, …), as any application does, never through a path into the library's files.
  {
    files: ['gateway/src/**/*.ts'],
    plugins: { 'import-x': importX, chatflux: importCircles },
    settings: importSettings,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['rxjs/internal/*'], message: 'Use the public rxjs API.' },
            { group: ['../*', '**/src/*'], message: "The gateway imports the library by its public entry points only ('chatflux', 'chatflux/node', 'chatflux/express', 'chatflux/testing'): export what it needs there, documented." },
          ],
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'chatflux/no-type-import-cycle': 'error',
    },
  },
);
