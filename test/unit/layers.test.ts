import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { nth } from '../helpers/nth.ts';

/**
 * The layers of src/ (docs/architecture.md, "Layers"; DESIGN.md, house rule 14): what each part may
 * import besides itself, and the composition roots, which may import any part. The one table is
 * eslint.config.js's (read from the package root, where the tests run); the last test below checks
 * that its rules forbid exactly what it says.
 */
const config = (await import(pathToFileURL(resolve('eslint.config.js')).href)) as {
  LAYERS: Readonly<Record<string, readonly string[]>>;
  ROOTS: readonly string[];
};
const { LAYERS, ROOTS } = config;
const PARTS = [...Object.keys(LAYERS), ...ROOTS];

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The part a file of src/ belongs to: its backend folder, top folder or top file. */
function partOf(file: string): string {
  const path = relative(SRC, file).split('/');
  const top = nth(path, 0);
  if (path.length === 1) return top.replace(/\.ts$/, '');
  const sub = `${top}/${nth(path, 1)}`;
  return path.length > 2 && sub in LAYERS ? sub : top;
}

// Static imports and re-exports (`import … from '…'`, `import '…'`, `export … from '…'`) and dynamic
// `import('…')`; type-only imports count too: a cycle of types is still a tangle of the layers.
const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

/** Every file of src/ and the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2];
      assert.ok(spec !== undefined, 'one of the two groups captures the specifier');
      if (spec.startsWith('.')) targets.add(resolve(dirname(file), spec));
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

const graph = importGraph();
const name = (file: string) => relative(SRC, file);

test('every file of src/ belongs to a part of the layer table', () => {
  const unknown = [...graph.keys()].filter((f) => !PARTS.includes(partOf(f))).map(name);
  assert.deepEqual(unknown, [], 'a new folder of src/ needs a row in LAYERS (and eslint.config.js)');
});

test('every import of src/ keeps to the layer table', () => {
  const broken: string[] = [];
  for (const [file, targets] of graph) {
    const from = partOf(file);
    const allowed = LAYERS[from];
    if (!allowed) continue;
    for (const target of targets) {
      const to = partOf(target);
      // packages/ (the typed client the mirror follows with) ship alone: a dependency, not a layer.
      if (relative(SRC, target).startsWith('../packages/')) continue;
      if (to !== from && !allowed.includes(to)) broken.push(`${name(file)} -> ${name(target)} (${from} -> ${to})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('no import cycle between the files of src/', () => {
  // Tarjan's strongly connected components: any component of more than one file is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(name(w));
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});

test('no lint exception for the layers in src/', () => {
  const exceptions = [...graph.keys()]
    .filter((f) =>
      /eslint-disable(?:-next-line|-line)?(?:\s*\*\/|\s*$|[^\n]*no-restricted-imports)/m.test(readFileSync(f, 'utf8')),
    )
    .map(name);
  assert.deepEqual(exceptions, []);
});

test("eslint.config.js's import rules forbid exactly what the layer table does", async () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const mismatches: string[] = [];
  for (const [part, allowed] of Object.entries(LAYERS)) {
    // A file of the part, and one import of a file of every other part, one per line.
    const probe = ['compose', 'config', 'server'].includes(part)
      ? join(SRC, `${part}.ts`)
      : join(SRC, part, 'probe.ts');
    const others = PARTS.filter((p) => p !== part);
    const lines = others.map((p) => {
      const target = ['compose', 'config', 'server'].includes(p) ? join(SRC, `${p}.ts`) : join(SRC, p, 'x.ts');
      const spec = relative(dirname(probe), target);
      return `import '${spec.startsWith('.') ? spec : `./${spec}`}';`;
    });
    const result = nth(await eslint.lintText(`${lines.join('\n')}\n`, { filePath: probe }), 0);
    const flagged = new Set(result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line));
    others.forEach((other, i) => {
      if (flagged.has(i + 1) === allowed.includes(other))
        mismatches.push(`${part} -> ${other}: lint ${flagged.has(i + 1) ? 'forbids' : 'allows'}`);
    });
  }
  assert.deepEqual(mismatches, []);
});
