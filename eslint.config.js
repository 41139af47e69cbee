import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ (docs/architecture.md, "Layers"): what each part may import besides itself.
 * A part is a top folder or top file of src/, or a backend folder of the store; test/unit/layers.test.ts
 * reads this table, checks it against the import graph (with cycles) and checks that the rules made
 * here from it forbid exactly what it says. Composition roots (cli/, compose.ts,
 * server.ts) may import anything and get no rule.
 */
export const LAYERS = {
  domain: [],
  catalog: ['domain'],
  changelog: ['domain', 'catalog'],
  perf: ['domain', 'catalog', 'changelog'],
  store: ['domain', 'catalog', 'changelog', 'perf'],
  'store/sqlite': ['domain', 'catalog', 'changelog', 'perf', 'store'],
  'store/memory': ['domain', 'catalog', 'changelog', 'perf', 'store'],
  'store/postgres': ['domain', 'catalog', 'changelog', 'perf', 'store'],
  bus: ['domain', 'changelog', 'perf'],
  'bus/redis': ['domain', 'changelog', 'perf', 'bus'],
  access: ['domain', 'catalog', 'perf', 'store'],
  config: ['catalog', 'access'],
  board: ['domain', 'catalog', 'changelog', 'perf', 'store', 'bus', 'config'],
  ledger: ['domain', 'catalog', 'changelog', 'perf', 'store', 'bus', 'board'],
  projection: ['domain', 'catalog', 'changelog', 'perf', 'board', 'access'],
  feeds: ['domain', 'catalog', 'changelog', 'perf', 'board', 'ledger'],
  ops: ['domain', 'catalog', 'changelog', 'perf', 'store', 'bus', 'board', 'access', 'config'],
  http: ['domain', 'catalog', 'changelog', 'perf', 'store', 'bus', 'board', 'access', 'config', 'projection', 'ops'],
  stream: ['domain', 'catalog', 'changelog', 'perf', 'store', 'bus', 'board', 'access', 'config', 'projection'],
};
export const ROOTS = ['cli', 'compose', 'server'];
const TOP_FILES = ['compose', 'config', 'server'];

/**
 * The import patterns that name a part: its folder anywhere in a relative path (a backend folder by
 * its own name, so that `./sqlite/…` from src/store/ is caught too), or the top file's name.
 */
function patternsOf(part) {
  if (TOP_FILES.includes(part)) return [`**/${part}.ts`];
  return [`**/${part.split('/').pop()}/**`];
}

/**
 * One override per part, listing every other part it may not import (a backend folder of a part
 * it may not import at all goes with that part). Later overrides replace earlier ones, so a backend
 * folder's rule, after its store's, is the one its files get.
 */
function layerRules() {
  const parts = [...Object.keys(LAYERS), ...ROOTS];
  return Object.entries(LAYERS).map(([part, allowed]) => {
    const shut = (p) => p !== part && !allowed.includes(p);
    const forbidden = parts.filter((p) => shut(p) && !(p.includes('/') && shut(p.split('/')[0])));
    return {
      files: [TOP_FILES.includes(part) ? `src/${part}.ts` : `src/${part}/**`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: forbidden.flatMap(patternsOf),
                message: `src/${part} may import only ${allowed.join(', ') || 'itself'} (the layer table in eslint.config.js).`,
              },
            ],
          },
        ],
      },
    };
  });
}

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'packages/*/dist/', 'packages/*/node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...layerRules(),
  {
    // The client package ships alone: from the server it takes types only (its wire schemas), never code.
    files: ['packages/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../../**', '../../../../**'],
              allowTypeImports: true,
              message: 'packages/ may take only types from the server (import type), never its code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
