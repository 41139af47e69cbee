// Runs the compiled test files of some folders, `--concurrency` (2) processes at a time, the
// longest first. node's own `--test` starts one process per file in name order: each small file
// paid for loading the sources again, and a long file named late could start last and end the run
// on one core while the other idled.
//
// test/file-times.json holds each file's seconds from a recorded run. `--together FOLDER:N` runs
// that folder's files in N processes (1 without `:N`), the files dealt out longest first to the
// process with the least time so far; each file is imported inside a suite named after it, so its
// top-level hooks still run around its own tests only. A file the table does not name yet counts
// as its folder's longest, and alone it starts first, so a long new file cannot end the run alone.
// `--alone NAME` keeps a file of such a folder in a process of its own: one that measures the whole
// process (a compaction of the heap, whose time grows with what the other files left in it).
// `--record` rewrites the table from this run's times (wall seconds, which the other lane's work
// inflates alike for every file).
//
//   node --enable-source-maps test/run-files.mjs [--concurrency N] [--record]
//     [--together FOLDER[:N]]... [--alone FOLDER/NAME]... ROOT FOLDER...
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const TIMES = new URL('file-times.json', import.meta.url);
const USAGE =
  'usage: run-files.mjs [--concurrency N] [--record] [--together FOLDER[:N]]... [--alone FOLDER/NAME]... ROOT FOLDER...\n';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    concurrency: { type: 'string', default: '2' },
    record: { type: 'boolean', default: false },
    together: { type: 'string', multiple: true, default: [] },
    alone: { type: 'string', multiple: true, default: [] },
  },
});
const [root, ...folders] = positionals;
const concurrency = Number(values.concurrency);
const groups = new Map(
  values.together.map((t) => {
    const [folder, n = '1'] = t.split(':');
    return [folder, Number(n)];
  }),
);
if (
  root === undefined ||
  folders.length === 0 ||
  !(concurrency >= 1) ||
  [...groups.values()].some((n) => !Number.isInteger(n) || n < 1)
) {
  process.stderr.write(USAGE);
  process.exit(2);
}

/** A file's name in the table: its folder and name without the extension, for .ts and .js alike. */
const nameOf = (file) => relative(resolve(root), file).replace(/\.test\.[mc]?[jt]s$/, '');

const testsOf = (folder) =>
  readdirSync(join(root, folder))
    .filter((f) => /\.test\.[mc]?[jt]s$/.test(f))
    .sort()
    .map((f) => resolve(root, folder, f));

const times = JSON.parse(readFileSync(TIMES, 'utf8'));

/** Seconds per file; a file not in the table counts as the longest of its folder. */
function secondsOf(files) {
  const known = files.map((f) => times[nameOf(f)]).filter((s) => s !== undefined);
  const longest = known.length > 0 ? Math.max(...known) : 1;
  return new Map(files.map((f) => [f, times[nameOf(f)] ?? longest]));
}

/**
 * The end of a shared process: a file that leaves a child, a socket, a server or a timer behind
 * would hold the process open, and the run with it, after its last test. Once every file's tests
 * and hooks are done, the process has this long to end by itself; if it has not, it names what
 * it still holds, kills the child processes among them and exits with 1, so that the run fails
 * with the cause instead of hanging.
 */
const WATCHDOG = `after(() => {
  setTimeout(() => {
    const own = [process.stdin, process.stdout, process.stderr];
    const held = process._getActiveHandles().filter((h) => !own.includes(h)).map((h) =>
      h.spawnargs ? \`a child process (\${h.spawnargs.join(' ')})\`
        : h.remotePort ? \`a socket to \${h.remoteAddress}:\${h.remotePort}\`
        : (h.constructor?.name ?? typeof h));
    process.stderr.write(\`still open 10 s after the last test: \${held.join('; ')}\\n\`);
    for (const h of process._getActiveHandles()) if (h.spawnargs) h.kill('SIGKILL');
    process.exit(1);
  }, 10_000).unref();
});
`;

/**
 * The folder's files in `n` processes: each an entry module beside the folder importing its files,
 * each file inside a suite named after it. Returns the entries and their summed seconds.
 */
function together(folder, n) {
  const files = testsOf(folder).filter((f) => !values.alone.includes(nameOf(f)));
  const seconds = secondsOf(files);
  const parts = Array.from({ length: Math.min(n, files.length) }, () => ({ files: [], seconds: 0 }));
  for (const f of [...files].sort((a, b) => seconds.get(b) - seconds.get(a))) {
    const least = parts.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    least.files.push(f);
    least.seconds += seconds.get(f);
  }
  return parts.map((part, i) => {
    const entry = resolve(root, `${folder}.together-${i + 1}.mjs`);
    const lines = part.files.map(
      (f) => `describe(${JSON.stringify(nameOf(f))}, () => import(${JSON.stringify(pathToFileURL(f).href)}));\n`,
    );
    writeFileSync(entry, [`import { after, describe } from 'node:test';\n`, ...lines, WATCHDOG].join(''));
    return { file: entry, seconds: part.seconds };
  });
}

// Alone, a file without a time starts first.
const alone = (file) => ({ file, seconds: times[nameOf(file)] ?? Infinity });
const runs = folders.flatMap((folder) => {
  if (!groups.has(folder)) return testsOf(folder).map(alone);
  const kept = testsOf(folder).filter((f) => values.alone.includes(nameOf(f)));
  return [...together(folder, groups.get(folder)), ...kept.map(alone)];
});
const missing = values.alone.filter((name) => !runs.some((r) => nameOf(r.file) === name));
if (missing.length > 0) {
  process.stderr.write(`run-files.mjs: --alone names no test file: ${missing.join(', ')}\n`);
  process.exit(2);
}
// Stable: runs of equal time keep their folder and name order.
const ordered = runs.map((r, i) => ({ ...r, i })).sort((a, b) => b.seconds - a.seconds || a.i - b.i);

// The tests' data directories (os.tmpdir()) in memory, on /dev/shm when it has room and TMPDIR
// does not name a place already: SQLite's syncs and a store's first pages then wait for no disk.
// Open to every user as /tmp is: a test runs a command as `nobody` in a directory there.
const SHM = '/dev/shm';
const SHM_ROOM = 4 * 1024 ** 3;
if (process.env.TMPDIR === undefined && existsSync(SHM)) {
  const { bavail, bsize } = statfsSync(SHM);
  if (bavail * bsize >= SHM_ROOM) {
    const tmp = mkdtempSync(join(SHM, 'oddsbase-tests-'));
    chmodSync(tmp, 0o1777);
    process.env.TMPDIR = tmp;
    const remove = () => rmSync(tmp, { recursive: true, force: true });
    process.on('exit', remove);
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, () => {
        remove();
        process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
      });
    }
  }
}

const took = {};
const stream = run({ files: ordered.map((o) => o.file), concurrency });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.on('test:complete', (t) => {
  if (t.file === undefined || t.nesting !== 0) return;
  // A file alone: the entry named by its path. A file run with others: its suite, named as the table names it.
  if (t.name === t.file) {
    if (!/\.together-\d+\.mjs$/.test(t.file)) took[nameOf(t.file)] = t.details.duration_ms / 1000;
  } else if (t.details.type === 'suite' && /\.together-\d+\.mjs$/.test(t.file)) {
    took[t.name] = t.details.duration_ms / 1000;
  }
});
stream.on('end', () => {
  if (!values.record) return;
  const table = { ...times };
  for (const [name, s] of Object.entries(took)) table[name] = Math.round(s * 10) / 10;
  const sorted = Object.fromEntries(Object.entries(table).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(TIMES, `${JSON.stringify(sorted, null, 2)}\n`);
});
stream.compose(spec).pipe(process.stdout);
