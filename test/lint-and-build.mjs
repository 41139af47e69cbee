// `npm test`'s steps on a two-core machine: the compile (test/build.mjs, which type-checks the
// sources and tests) in one lane; the lint in the other: eslint, prettier and the page's type
// check (`npm run lint:code`, `lint:format`, `lint:web`). A command given after `--` (the test
// run) starts as soon as the compile has passed, while the lint goes on beside it: the test run
// leaves a core idle much of the time (servers starting, clients waiting), which the lint fills.
// The command's output is live; each lint step's is printed whole when it ends. Fails if any
// step fails; the command does not start if the compile fails.
//
//   node test/lint-and-build.mjs [OUT_DIR] [-- COMMAND...]
import { spawn } from 'node:child_process';

const dash = process.argv.indexOf('--');
const ours = dash === -1 ? process.argv.slice(2) : process.argv.slice(2, dash);
const then = dash === -1 ? [] : process.argv.slice(dash + 1);

const compile = [['node', 'test/build.mjs', ...ours]];
const lint = [
  ['npm', 'run', '--silent', 'lint:code'],
  ['npm', 'run', '--silent', 'lint:format'],
  ['npm', 'run', '--silent', 'lint:web'],
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

/** Runs `command` with its output live; true if it exits 0. */
function live([cmd, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.on('error', (err) => {
      process.stderr.write(`${cmd}: ${err.message}\n`);
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

const compiled = lane(compile);
const passed = await Promise.all([
  lane(lint),
  compiled,
  then.length > 0 ? compiled.then((ok) => ok && live(then)) : true,
]);
process.exit(passed.every(Boolean) ? 0 : 1);
