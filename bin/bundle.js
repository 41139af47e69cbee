// esbuild's bundle of a TypeScript entry point of this package into one ES module under
// node_modules/.cache/oddsbase, made afresh at every start (about 0.1 s) so that it is never stale.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles `entry` (a path from the package root); returns the bundle's path. */
export async function bundle(entry) {
  const { build } = await import('esbuild');
  const dir = join(root, 'node_modules', '.cache', 'oddsbase');
  // One bundle per entry and source tree: checkouts sharing an installed node_modules never run
  // each other's.
  const tag = createHash('sha256').update(join(root, entry)).digest('hex').slice(0, 12);
  const out = join(dir, `${entry.replace(/\W+/g, '-')}-${tag}.mjs`);
  // Written aside, then renamed: a process starting beside this one never reads half a file.
  const part = `${out}.${process.pid}.part`;
  mkdirSync(dir, { recursive: true });
  try {
    await build({
      entryPoints: [join(root, entry)],
      outfile: part,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      // The bundle lives under node_modules/.cache, which may be a link to another checkout's: the
      // package root it serves files from (web/dist) is this one, named here.
      define: { __ODDSBASE_ROOT__: JSON.stringify(root) },
    });
    renameSync(part, out);
  } finally {
    rmSync(part, { force: true });
  }
  return out;
}
