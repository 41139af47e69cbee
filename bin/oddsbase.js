#!/usr/bin/env node
// Runs the TypeScript sources with no build step between `npm ci` and `npm start`: at every start
// esbuild bundles them into one ES module (about 0.1 s), so nothing built can go stale. Running the
// bundle instead of transpiling on load spares the loader's thread and its copies of the sources
// (about 16 MB of resident memory, docs/benchmarks.md). Where the bundle cannot be made (a
// read-only install), tsx transpiles on load instead.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

async function bundle() {
  const { build } = await import('esbuild');
  const dir = join(root, 'node_modules', '.cache', 'oddsbase');
  // One bundle per source tree: checkouts sharing an installed node_modules never run each other's.
  const out = join(dir, `main-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.mjs`);
  // Written aside, then renamed: a server starting beside this one never reads half a file.
  const part = `${out}.${process.pid}.part`;
  mkdirSync(dir, { recursive: true });
  try {
    await build({
      entryPoints: [join(root, 'src', 'cli', 'main.ts')],
      outfile: part,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
    });
    renameSync(part, out);
  } finally {
    rmSync(part, { force: true });
  }
  return out;
}

let main;
try {
  main = pathToFileURL(await bundle()).href;
} catch {
  const { register } = await import('tsx/esm/api');
  register();
  main = '../src/cli/main.ts';
}
await import(main);
