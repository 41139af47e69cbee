/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the frames with the most self time, and
 * the inclusive time of the functions named on the command line.
 *
 *   node --import tsx bench/profile-top.ts PROFILE.cpuprofile [--top 25] [--under fnName] [fnName ...]
 *
 * --under limits the counts to samples whose stack contains that function.
 */
import { readFileSync } from 'node:fs';
import { isMain } from './lib.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTime {
  frame: string;
  ms: number;
  share: number;
}

function frameName(f: CallFrame): string {
  const file = f.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|src|bench)\//, '$1/');
  const name = f.functionName || '(anonymous)';
  return file ? `${name} ${file}:${f.lineNumber + 1}` : name;
}

export function summarise(
  path: string,
  opts: {
    top?: number;
    under?: string;
    inclusive?: string[];
    /**
     * Only samples taken within these [from, to] spans, in µs of the monotonic clock (what
     * process.hrtime.bigint() / 1000n reads in any process of the machine, and V8 stamps samples with).
     */
    windows?: readonly (readonly [number, number])[];
  } = {},
): { totalMs: number; self: FrameTime[]; inclusive: FrameTime[] } {
  const p = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id: number): ProfileNode[] => {
    const out: ProfileNode[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) out.push(byId.get(cur)!);
    return out;
  };
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  let ts = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    ts += p.timeDeltas[i] ?? 0;
    if (opts.windows && !opts.windows.some(([a, b]) => ts >= a && ts <= b)) continue;
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    const stack = stackOf(p.samples[i]!);
    if (opts.under && !stack.some((n) => n.callFrame.functionName === opts.under)) continue;
    total += dt;
    // stackOf starts from the sample's own node, so a stack is never empty.
    const leaf = frameName(stack[0]!.callFrame);
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    const seen = new Set<string>();
    for (const n of stack) {
      const fn = n.callFrame.functionName;
      if (opts.inclusive?.includes(fn) && !seen.has(fn)) {
        seen.add(fn);
        incl.set(fn, (incl.get(fn) ?? 0) + dt);
      }
    }
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).map(([frame, ms]) => ({ frame, ms, share: ms / total }));
  return { totalMs: total, self: rank(self).slice(0, opts.top ?? 25), inclusive: rank(incl) };
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const file = args.shift();
  if (!file) {
    process.stderr.write('usage: profile-top.ts PROFILE.cpuprofile [--top N] [--under fn] [fn ...]\n');
    process.exit(2);
  }
  let top = 25;
  let under: string | undefined;
  const inclusive: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--top') top = Number(args[++i]);
    else if (a === '--under') under = args[++i];
    else inclusive.push(a);
  }
  const r = summarise(file, { top, under, inclusive });
  process.stdout.write(`total ${r.totalMs.toFixed(0)} ms${under ? ` under ${under}` : ''}\n\nself time:\n`);
  for (const f of r.self) {
    process.stdout.write(`${f.ms.toFixed(0).padStart(8)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.frame}\n`);
  }
  if (r.inclusive.length > 0) {
    process.stdout.write('\ninclusive time:\n');
    for (const f of r.inclusive) {
      process.stdout.write(
        `${f.ms.toFixed(0).padStart(8)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.frame}\n`,
      );
    }
  }
}
