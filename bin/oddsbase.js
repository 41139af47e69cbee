#!/usr/bin/env node
// Runs the TypeScript sources with no build step between `npm ci` and `npm start`: at every start
// esbuild bundles them into one ES module (bin/bundle.js), so nothing built can go stale. Running
// the bundle instead of transpiling on load spares the loader's thread and its copies of the
// sources (about 16 MB of resident memory, docs/benchmarks.md). Where the bundle cannot be made (a
// read-only install), tsx transpiles on load instead.
import { pathToFileURL } from 'node:url';
import { bundle } from './bundle.js';

let main;
try {
  main = pathToFileURL(await bundle('src/cli/main.ts')).href;
} catch {
  const { register } = await import('tsx/esm/api');
  register();
  main = '../src/cli/main.ts';
}
await import(main);
