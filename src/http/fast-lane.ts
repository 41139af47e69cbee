import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyRequest } from 'fastify';
import type { AccessControl, Denial, HeaderSink } from '../access/access-control.ts';
import type { Account } from '../access/authenticator.ts';
import { type MarketKinds, type PlanScope, scopeOf } from '../access/plan-scope.ts';
import { BudgetMap, type ByteBudget, MARK_BYTES } from '../perf/byte-budget.ts';
import { allows, type CallerRule } from './caller-rules.ts';
import { acceptsGzip, type KeptBody, matchesEtag, VARY } from './encoding.ts';

/**
 * A kept answer: its JSON bytes, gzip bytes and ETag, the data points it is metered at, and the
 * rules per caller it was given under, which the lane asks again for each caller.
 */
export interface LaneAnswer extends KeptBody {
  readonly points: number;
  readonly rules: readonly CallerRule[];
}

/** How a route answers one URL again for callers of one plan scope, without routing. */
export interface LaneEntry {
  /** The route's pattern: what the request metrics count it under. */
  readonly route: string;
  /** The interface the route belongs to: the caller needs that subscription. */
  readonly api: 'v1' | 'v2';
  /**
   * The answer the route would give the URL now, if it is kept and still current; undefined sends
   * the request through the router, which answers (and keeps) it the ordinary way. It states no
   * rule per caller: those come with the answer (`LaneAnswer.rules`), the objects the route asked.
   */
  answer(): LaneAnswer | undefined;
}

/** Told of every answer the lane sends: method, route pattern, status and milliseconds. */
export type LaneObserver = (method: string, route: string, status: number, ms: number) => void;

/** Heap bytes of an entry (object, closure, its context) besides its key. */
const ENTRY_BYTES = 256;

const JSON_TYPE = 'application/json; charset=utf-8';

/** Collects the usage and entitlement headers `AccessControl.meter` sets, as name, value pairs. */
class HeaderList implements HeaderSink {
  constructor(readonly pairs: string[]) {}

  header(name: string, value: string): void {
    this.pairs.push(name, value);
  }
}

/**
 * Repeated GETs answered from the response caches before fastify routes them. Polls of a snapshot
 * come many times between two commits; each already finds its whole body kept (the events and
 * season-stats response caches), yet routing, validation, the hooks and fastify's reply cost more
 * than the rest of such a request. A route that answers a URL from a kept body tells the lane how
 * to do it again (`remember`); the lane then serves later requests of that URL from callers of the
 * same plan scope itself, applying the same access rules through the same objects: the key from
 * the header (the authenticator's cache only), V1/V2 subscription, the rules per caller the kept
 * answer was given under (src/http/caller-rules.ts),
 * the burst ceiling and caps (`AccessControl.admit`), metering and its headers
 * (`AccessControl.meter`), and the request metrics. Anything else (a miss, a stale answer, an
 * unknown key, a key in the query, a body, an odd header) goes to the router unchanged; a request
 * the lane refused for a limit carries that decision to the router, which answers it as it
 * answers every refusal. Entries draw from the shared byte budget.
 */
export class FastLane {
  /**
   * Entries by plan scope key, then by URL: looked up with the request's own URL string, so that a
   * poll builds no key of its own (one per request, hashed anew, was a share of the lane's cost).
   * The scopes are the plans' (a handful, and an enterprise key's custom limits), each kept for good.
   */
  private readonly entries = new Map<string, BudgetMap<string, LaneEntry | null>>();
  private readonly observers: LaneObserver[] = [];
  /** Refusals decided here, answered by the router's access hook. */
  private readonly refusals = new WeakMap<IncomingMessage, Denial>();
  private readonly header: string;
  private answered = 0;

  constructor(
    private readonly budget: ByteBudget,
    private readonly auth: { cached(key: string | undefined): Account | undefined },
    private readonly access: AccessControl,
    keyHeader: string,
    private readonly markets: MarketKinds,
  ) {
    this.header = keyHeader.toLowerCase();
  }

  /** Requests answered by the lane so far. */
  get count(): number {
    return this.answered;
  }

  observe(observer: LaneObserver): void {
    this.observers.push(observer);
  }

  /**
   * Remembers how to answer this request's URL for callers of `scope`. Only requests the lane could
   * have taken (a GET with the key in its header) are remembered; with `fromSecond` (a route that
   * keeps its answer from a URL's second request), from the second such request, the first leaving
   * a mark. `make` runs once per URL and scope, and should make its function elsewhere than in a
   * route handler, whose request it would keep.
   */
  remember(
    request: FastifyRequest,
    scope: PlanScope,
    api: LaneEntry['api'],
    make: () => LaneEntry['answer'],
    fromSecond = false,
  ): void {
    if (request.method !== 'GET' || typeof request.headers[this.header] !== 'string') return;
    let byUrl = this.entries.get(scope.key);
    if (!byUrl) this.entries.set(scope.key, (byUrl = new BudgetMap(this.budget)));
    const seen = byUrl.peek(request.url);
    if (seen) return;
    if (seen === undefined && fromSecond) byUrl.set(request.url, null, MARK_BYTES);
    else byUrl.set(request.url, { route: request.routeOptions.url!, api, answer: make() }, ENTRY_BYTES);
  }

  /** The refusal the lane decided for this request, once: the access hook answers it. */
  takeRefusal(req: IncomingMessage): Denial | undefined {
    const denial = this.refusals.get(req);
    if (denial) this.refusals.delete(req);
    return denial;
  }

  /** Answers `req` and returns true, or returns false and leaves it untouched for the router. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    const h = req.headers;
    const presented = h[this.header];
    if (typeof presented !== 'string') return false;
    // What the protocol checks refuse or read (a body, an expectation, no Host) is theirs to answer.
    if (h['transfer-encoding'] !== undefined || h.expect !== undefined) return false;
    if (h['content-length'] !== undefined && h['content-length'] !== '0') return false;
    if (h.host === undefined) return false;
    const account = this.auth.cached(presented);
    if (!account || account.unservable) return false;
    const entry = this.entries.get(scopeOf(account, this.markets).key)?.get(req.url!);
    if (!entry || !(entry.api === 'v2' ? account.v2 : account.v1)) return false;
    const answer = entry.answer();
    if (!answer || !allows(answer.rules, account)) return false;
    const start = performance.now();
    const denial = this.access.admit(account, true);
    if (denial) {
      this.refusals.set(req, denial);
      return false;
    }
    // As sendKept (route-kit.ts) answers: 304 costs no data points; gzip when taken and kept.
    let status = 200;
    let headers: HeaderList;
    let body: Buffer | undefined;
    if (h['if-none-match'] !== undefined && matchesEtag(h['if-none-match'], answer.etag)) {
      status = 304;
      headers = new HeaderList(['vary', VARY, 'etag', answer.etag]);
      this.access.meter(account, 0, headers);
    } else {
      const gzip = answer.gzip && acceptsGzip(h['accept-encoding']) ? answer.gzip : undefined;
      body = gzip ?? answer.body;
      headers = new HeaderList(['vary', VARY, 'etag', answer.etag, 'content-type', JSON_TYPE]);
      if (gzip) headers.pairs.push('content-encoding', 'gzip');
      headers.pairs.push('content-length', String(body.length));
      this.access.meter(account, answer.points, headers);
    }
    res.writeHead(status, headers.pairs);
    res.end(body);
    this.answered++;
    // Timed to the hand-over of the bytes (the body is in the socket or queued behind it), not to
    // 'finish': a listener per request would cost more than the rest of the accounting.
    const ms = performance.now() - start;
    for (const observe of this.observers) observe('GET', entry.route, status, ms);
    return true;
  }
}
