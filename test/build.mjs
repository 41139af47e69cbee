// Type-checks the sources, tests and benchmarks and compiles them once into
// node_modules/.cache/oddsbase-tests (or the folder given as the argument), so that each test
// process loads plain JavaScript instead of transpiling the whole server again on load (about a
// second of CPU per test file through tsx). The folder is emptied first: a test file removed from
// test/ must not run from an old build.
//
//   node test/build.mjs [OUT_DIR]
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const out = process.argv[2] ?? 'node_modules/.cache/oddsbase-tests';
rmSync(out, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json', '--outDir', out], {
    stdio: 'inherit',
  });
} catch {
  process.exit(1);
}
