import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

// `npm test` needs nothing but Node, and the embedded server's bundle hoists static imports of
// packages to its top: pg and its COPY streams are loaded only by an `import()` when a database
// is configured.
test('no source, and nothing npm test loads, imports pg or pg-copy-streams statically', () => {
  const files = ['src', 'test/unit', 'test/contract', 'test/integration', 'test/helpers'].flatMap(sources);
  const staticImport = /^import\s+(?!type\b)[^;]*from\s+['"]pg(-copy-streams)?['"]/m;
  const offenders = files.filter((f) => staticImport.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
  const lazy = files.filter((f) => /import\(['"]pg['"]\)/.test(readFileSync(f, 'utf8')));
  assert.ok(lazy.includes(join('src', 'store', 'postgres', 'database.ts')), 'the store loads it on first use');
  const copy = files.filter((f) => /import\(['"]pg-copy-streams['"]\)/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(copy, [join('src', 'store', 'postgres', 'pg-commit.ts')], 'the commit loads it on first use');
});
