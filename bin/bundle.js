// esbuild's bundle of a TypeScript entry point of this package into one ES module under
// node_modules/.cache/oddsbase. A bundle is used again only while every file it was made from has
// the content it had then (a hash of each, read at every start: about 10 ms), so it is never
// stale; otherwise it is made afresh (0.1 s on a quiet machine, 1 s or more on a busy one).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Files that shape a bundle without being among its inputs. */
const SETTINGS = ['tsconfig.json', 'package.json', 'bin/bundle.js', 'node_modules/esbuild/package.json'];

const digest = (file) =>
  createHash('sha256')
    .update(readFileSync(join(root, file)))
    .digest('hex');

/** Whether the inputs listed in `manifest` still hold what they held when the bundle was made. */
function unchanged(manifest) {
  try {
    const made = JSON.parse(readFileSync(manifest, 'utf8'));
    for (const [file, hash] of Object.entries(made.inputs)) if (digest(file) !== hash) return false;
    return true;
  } catch {
    // No manifest, or an input gone: make the bundle again.
    return false;
  }
}

/** Bundles `entry` (a path from the package root); returns the bundle's path. */
export async function bundle(entry) {
  const dir = join(root, 'node_modules', '.cache', 'oddsbase');
  // One bundle per entry and source tree: checkouts sharing an installed node_modules never run
  // each other's.
  const tag = createHash('sha256').update(join(root, entry)).digest('hex').slice(0, 12);
  const out = join(dir, `${entry.replace(/\W+/g, '-')}-${tag}.mjs`);
  const manifest = `${out}.inputs.json`;
  if (unchanged(manifest)) return out;
  const { build } = await import('esbuild');
  // Written aside, then renamed: a process starting beside this one never reads half a file.
  const part = `${out}.${process.pid}.part`;
  mkdirSync(dir, { recursive: true });
  try {
    const made = await build({
      entryPoints: [join(root, entry)],
      outfile: part,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      metafile: true,
      absWorkingDir: root,
      // The bundle lives under node_modules/.cache, which may be a link to another checkout's: the
      // package root it serves files from (web/dist) is this one, named here.
      define: { __ODDSBASE_ROOT__: JSON.stringify(root) },
    });
    const inputs = {};
    for (const file of [...Object.keys(made.metafile.inputs), ...SETTINGS]) inputs[file] = digest(file);
    renameSync(part, out);
    writeFileSync(`${manifest}.${process.pid}.part`, JSON.stringify({ inputs }));
    renameSync(`${manifest}.${process.pid}.part`, manifest);
  } finally {
    rmSync(part, { force: true });
    rmSync(`${manifest}.${process.pid}.part`, { force: true });
  }
  return out;
}
