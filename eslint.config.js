// ESLint (flat config): typescript-eslint's strict type-checked rules over the TypeScript sources
// (src, test, scripts, examples) and the two plain-ESM entries (bin, lib). `npm run lint`.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['node_modules/', 'native/', 'reports/', '.stryker-tmp/', 'types/', 'dist/', 'dist.partial-*/', 'bench-results/', 'runs/', 'tmp/', 'docs/'],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          // bin/*.mjs, lib/*.mjs and this file are outside tsconfig.json (no allowJs): the default project types them.
          allowDefaultProject: ['bin/*.mjs', 'lib/*.mjs', 'scripts/bench/*.mjs', 'eslint.config.js'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // noUncheckedIndexedAccess is on: a '!' on an indexed read is this codebase's way to say "this index exists".
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Numbers and booleans in messages print as expected; arrays are shapes and lists, `[${shape}]` joins them with commas on purpose.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowArray: true }],
      // node:test's test/describe/it return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      // `(x) => doIt(x)` shorthands whose call returns void are fine.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // A leading underscore marks a parameter an interface requires but this implementation does not use (an optimizer's step
      // count), or a key destructured out to drop it.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async function without await is how this code implements a Promise-returning interface (IOHandler.load, the
      // cluster's join/gather, user callbacks in tests); it also turns a synchronous throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // The config is a plain object on purpose (it round-trips through YAML and JSON); delete removes a key from it.
      '@typescript-eslint/no-dynamic-delete': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read back JSON and YAML files a run wrote (metrics.jsonl, best.json, a child's RESULT line) and assert on
      // their fields; a field of the wrong shape fails the assertion, which is the check these rules would ask for.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // `tf.backend() as BackendWasm` is how a test reaches the wasm backend's own methods (tfjs types it as the base class).
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
);
