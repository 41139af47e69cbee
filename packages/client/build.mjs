// Builds the package into dist/ (or --outDir DIR): the JavaScript of src/ and its declarations,
// nothing else. The wire types of src/types.ts are Static<> of the server's TypeBox schemas,
// imported as types only, so no server code reaches the JavaScript; here their declarations are
// written out as plain object types, so the published types import nothing of the server and need
// no TypeBox either. A type that cannot be written out stops the build.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf('--outDir');
const outDir = resolve(at > 0 ? process.argv[at + 1] : join(here, 'dist'));
const srcDir = join(here, 'src');

const config = ts.getParsedCommandLineOfConfigFile(
  join(here, 'tsconfig.build.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => fail([d]),
  },
);
const program = ts.createProgram(config.fileNames, config.options);
fail(ts.getPreEmitDiagnostics(program));

/** Where tsc would put the outputs of src/ (rootDir is the repository, for the server's types). */
const emittedSrc = join(config.options.outDir, relative(config.options.rootDir, srcDir));
const write = (file, text) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};
rmSync(outDir, { recursive: true, force: true });
const emitted = program.emit(undefined, (fileName, text) => {
  const rel = relative(emittedSrc, fileName);
  // The server's modules are in the program for their types only: never shipped.
  if (rel.startsWith('..') || rel === 'types.d.ts') return;
  write(join(outDir, rel), text);
});
fail(emitted.diagnostics);
write(join(outDir, 'types.d.ts'), wireTypes(join(srcDir, 'types.ts')));

/**
 * The declarations of a module of type aliases, each alias's type written out in full; where one
 * alias's object type appears inside another, it is written as that alias's name.
 */
function wireTypes(file) {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const printer = ts.createPrinter();
  const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias;
  /**
   * A type as text, from the scope of src/types.ts: a named type of the server it uses (such as
   * FuturesState, a union of literals) comes out as import("…").Name, and is replaced by what the
   * name stands for, in parentheses.
   */
  const writtenOut = (type) => {
    const node = checker.typeToTypeNode(type, source, flags);
    return printer
      .printNode(ts.EmitHint.Unspecified, node, source)
      .replace(/import\("([^"]+)"\)\.(\w+)/g, (_, from, name) => {
        const module = program.getSourceFile(`${from}.ts`);
        const exports = module ? checker.getExportsOfModule(checker.getSymbolAtLocation(module)) : [];
        const named = exports.find((e) => e.name === name);
        if (!named) throw new Error(`${name} of ${from}: not found`);
        return `(${writtenOut(checker.getDeclaredTypeOfSymbol(named))})`;
      });
  };
  const aliases = source.statements.filter(ts.isTypeAliasDeclaration).map((decl) => {
    const text = writtenOut(checker.getTypeAtLocation(decl.name));
    if (/\bimport\(|\btypeof\b|\bStatic<|\bany\b/.test(text)) {
      throw new Error(`${decl.name.text}: its type is not self-contained: ${text.slice(0, 200)}`);
    }
    const comments = ts.getLeadingCommentRanges(source.text, decl.getFullStart()) ?? [];
    const doc = comments.map((c) => source.text.slice(c.pos, c.end)).filter((c) => c.startsWith('/**'));
    return { name: decl.name.text, text, doc };
  });
  const objects = aliases.filter((a) => /^\{.*\}(\[\])?$/s.test(a.text)).sort((a, b) => b.text.length - a.text.length);
  const lines = ['// The wire types: written out by build.mjs from the server’s schemas.'];
  for (const a of aliases) {
    let text = a.text;
    // Largest first, so an alias inside another is named before its own parts are.
    for (const o of objects) if (o.text.length < a.text.length) text = text.split(o.text).join(o.name);
    lines.push(...a.doc, `export type ${a.name} = ${text};`);
  }
  const text = printer.printFile(ts.createSourceFile('types.d.ts', lines.join('\n'), ts.ScriptTarget.Latest, true));
  checkAlone(text);
  return text;
}

/** Stops the build unless the declarations type-check with nothing else (a name left unwritten). */
function checkAlone(text) {
  const name = join(outDir, 'types.d.ts');
  const options = { strict: true, noEmit: true, types: [], skipLibCheck: false };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile;
  host.getSourceFile = (file, ...rest) =>
    file === name ? ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) : read(file, ...rest);
  fail(ts.getPreEmitDiagnostics(ts.createProgram([name], options, host)));
}

function fail(diagnostics) {
  if (diagnostics.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => here, getNewLine: () => '\n' };
  process.stderr.write(ts.formatDiagnostics(diagnostics, host));
  process.exit(1);
}
