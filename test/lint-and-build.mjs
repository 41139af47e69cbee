// `npm test`'s first step: the lint and the compile in two lanes at once, one per core of a
// two-core machine, instead of one after the other. One lane compiles the sources and tests
// (test/build.mjs, which type-checks them) and then type-checks the page (`npm run lint:web`); the
// other runs eslint and then prettier (`npm run lint:code`, `npm run lint:format`). Each lane's
// output is printed whole when it ends, so the two do not interleave; the step fails if either does.
// An argument is the compile's folder (test/build.mjs's).
import { spawn } from 'node:child_process';

const lanes = [
  [
    ['node', 'test/build.mjs', ...process.argv.slice(2)],
    ['npm', 'run', '--silent', 'lint:web'],
  ],
  [
    ['npm', 'run', '--silent', 'lint:code'],
    ['npm', 'run', '--silent', 'lint:format'],
  ],
];

/** Runs `cmd` with its output kept; resolves with its exit code and the output. */
function run([cmd, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(cmd === 'node' ? process.execPath : cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    child.on('error', (err) => resolve({ code: 1, out: `${out}${err.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 1, out: signal ? `${out}killed by ${signal}\n` : out }),
    );
  });
}

/** Runs a lane's commands in turn, stopping at the first that fails; true if all passed. */
async function lane(commands) {
  for (const command of commands) {
    const { code, out } = await run(command);
    process.stdout.write(out);
    if (code !== 0) {
      process.stdout.write(`${command.join(' ')} failed (exit ${code})\n`);
      return false;
    }
  }
  return true;
}

const passed = await Promise.all(lanes.map(lane));
process.exit(passed.every(Boolean) ? 0 : 1);
