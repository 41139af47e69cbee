import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromFamily {
  /** The family's name: without `_total` for counters, without `_bucket`/`_sum`/`_count` for histograms. */
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped' | 'unknown';
  help: string;
  samples: PromSample[];
}

const PYTHON = '/usr/bin/python3';
// From the package root (where npm runs the tests), since the tests run compiled from elsewhere.
const SCRIPT = join(process.cwd(), 'test', 'helpers', 'parse_prometheus.py');

/**
 * The Prometheus project's Python client (Debian's python3-prometheus-client) parses the text: the
 * reference parser of the format, which the JavaScript packages are not (they lose the labels of
 * histograms). Installed by the test set-up when absent, as the other Debian packages tests use.
 */
function ensureParser(): void {
  const has = () => {
    try {
      execFileSync(PYTHON, ['-c', 'import prometheus_client.parser'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (has()) return;
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'python3-prometheus-client'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'ignore' });
    install();
  }
  if (!has()) throw new Error('python3-prometheus-client is not usable after installing it');
}

/** Parses a scrape; rejects with the parser's message when any line is not valid exposition text. */
export function parsePrometheus(text: string): Promise<PromFamily[]> {
  ensureParser();
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, [SCRIPT], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`the Prometheus parser refused the text: ${stderr || err.message}`));
      const raw = JSON.parse(stdout) as (Omit<PromFamily, 'samples'> & {
        samples: (Omit<PromSample, 'value'> & { value: string })[];
      })[];
      resolve(
        raw.map((f) => ({
          ...f,
          samples: f.samples.map((s) => ({ ...s, value: s.value === 'inf' ? Infinity : Number(s.value) })),
        })),
      );
    });
    child.stdin!.end(text);
  });
}
