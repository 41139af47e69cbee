// Type-checks the sources, tests and benchmarks and compiles them once into
// node_modules/.cache/oddsbase-tests, so that each test process loads plain JavaScript instead of
// transpiling the whole server again on load (about a second of CPU per test file through tsx).
// The folder is emptied first: a test file removed from test/ must not run from an old build.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
rmSync('node_modules/.cache/oddsbase-tests', { recursive: true, force: true });
try {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json'], {
    stdio: 'inherit',
  });
} catch {
  process.exit(1);
}
