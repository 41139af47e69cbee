import type { MarketPrice, Score, ServerMessage } from '../../packages/client/src/index.ts';
import { type AppContext, booksOf, offsetOf } from './app-context.ts';
import { type BoardEvent, boardEvent, priceIds } from './board-model.ts';
import { escapeHtml } from './escape.ts';
import { ODDS_FORMATS, type OddsFormat } from './odds-format.ts';
import { OddsTables } from './odds-table.ts';
import { RestPoller } from './rest-poller.ts';
import { SnapshotMerge } from './snapshot-merge.ts';

export interface DayParams {
  sportId: number;
  date: string;
}

/** Games on now first, then those to come, then those over; by start time within each. */
const STAGE: Record<string, number> = { STATUS_IN_PROGRESS: 0, STATUS_HALFTIME: 0, STATUS_SCHEDULED: 1 };
const stageOf = (ev: BoardEvent) => STAGE[ev.score?.event_status ?? 'STATUS_SCHEDULED'] ?? 2;
const byScreenOrder = (a: BoardEvent, b: BoardEvent) =>
  stageOf(a) - stageOf(b) || a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id);

export const dayHash = (p: DayParams): string => `#/sport/${p.sportId}/${p.date}`;

const SUBS = { markets: 'day-markets', scores: 'day-scores' } as const;
/** Politics (sport 22) has no games to show odds of on this screen. */
const POLITICS = 22;

/**
 * The odds screen of a sport and day: pickers, every event's odds from the REST snapshot, kept
 * live by the markets and scores channels. Answers the function that leaves the view.
 */
export async function showDay(ctx: AppContext, params: DayParams, root: HTMLElement): Promise<() => void> {
  const formatOptions = ODDS_FORMATS.map(
    (f) => `<option value="${f.value}"${f.value === ctx.format ? ' selected' : ''}>${f.label}</option>`,
  ).join('');
  root.innerHTML = `
    <form class="controls" aria-label="Choose what to show">
      <label>Sport <select name="sport"><option value="${params.sportId}" selected>Sport ${params.sportId}</option></select></label>
      <label>Date <input type="date" name="date" value="${escapeHtml(params.date)}" required></label>
      <label>Odds <select name="format">${formatOptions}</select></label>
    </form>
    <p class="summary" id="summary">Loading…</p>
    <div id="events" class="events"></div>`;
  const form = root.querySelector('form')!;
  const summary = root.querySelector<HTMLElement>('#summary')!;
  const tables = new OddsTables(root.querySelector('#events')!, [], ctx.format, true);

  form.addEventListener('change', (e) => {
    const target = e.target as HTMLSelectElement | HTMLInputElement;
    if (target.name === 'format') {
      ctx.setFormat(target.value as OddsFormat);
      tables.setFormat(target.value as OddsFormat);
      return;
    }
    const sportId = Number((form.elements.namedItem('sport') as HTMLSelectElement).value);
    const date = (form.elements.namedItem('date') as HTMLInputElement).value;
    if (/^\d{4}-\d{2}-\d{2}$/.test(date)) location.hash = dayHash({ sportId, date });
  });

  // The sport names arrive beside the snapshot rather than before it.
  const sportSelect = form.elements.namedItem('sport') as HTMLSelectElement;
  const sportsRead = ctx.client.sports().then(({ data }) => {
    sportSelect.innerHTML = data.sports
      .filter((s) => s.sport_id !== POLITICS)
      .map(
        (s) =>
          `<option value="${s.sport_id}"${s.sport_id === params.sportId ? ' selected' : ''}>${escapeHtml(s.sport_name)}</option>`,
      )
      .join('');
  });

  const offset = offsetOf(params.date);
  const load = async (): Promise<number> => {
    const q = { market_ids: [1, 2, 3], main_line: true, offset } as const;
    // Snapshot prices carry no closed_at: the same read without closed prices tells them apart.
    // The odds are drawn from the first answer; the closed marks follow from the second.
    const openRead = ctx.client.events(params.sportId, params.date, { ...q, hide_closed: true });
    openRead.catch(() => undefined);
    const all = await ctx.client.events(params.sportId, params.date, q);
    const first = performance.getEntriesByName('odds-rendered').length === 0;
    if (first) performance.mark('odds-snapshot-read');
    const events = all.data.events.map((e) => boardEvent(e)).sort(byScreenOrder);
    tables.show(events, booksOf(ctx.affiliates, all.plan));
    shown = events.length;
    summary.textContent = events.length === 0 ? 'No events on this day.' : `${events.length} events`;
    // The first paint of the odds and its snapshot's arrival, for the browser tests (docs/benchmarks.md).
    if (first) performance.mark('odds-rendered');
    const open = await openRead;
    tables.closeMissing(priceIds(open.data.events));
    // Deltas after the older of the two heads apply; one already in a snapshot replaces its quote with itself.
    const head = BigInt(all.data.meta.delta_last_id) < BigInt(open.data.meta.delta_last_id) ? all : open;
    lastHead = head.data.meta.delta_last_id;
    poller?.from(lastHead);
    return Number(head.data.meta.delta_last_id);
  };
  let shown = 0;
  let lastHead: string | undefined;
  const merge = new SnapshotMerge(load, (msg) => {
    if (msg.id === SUBS.markets && msg.kind === 'market_price') tables.price(msg.data as MarketPrice);
    else if (msg.id === SUBS.scores && msg.kind === 'score') {
      const d = msg.data as { event_id: string; score: Score };
      tables.score(d.event_id, d.score);
    }
  });

  // Without streams in the plan, the markets delta keeps the prices current instead.
  let poller: RestPoller | undefined;
  const stopWatching = ctx.feed.onState((state) => {
    if (state !== 'unavailable' || poller) return;
    poller = new RestPoller(
      ctx.client,
      params.sportId,
      () => shown === 0,
      (row) => tables.price(row),
      () => merge.reload(),
    );
    if (lastHead !== undefined) poller.from(lastHead);
  });

  const acked = new Set<string>();
  const onMessage = (msg: ServerMessage) => {
    if (msg.id !== SUBS.markets && msg.id !== SUBS.scores) return;
    if (msg.type === 'delta') merge.delta(msg);
    else if (msg.type === 'subscribed' && msg.position && !acked.has(msg.id!)) {
      acked.add(msg.id!);
      merge.acknowledged(msg.position.id);
    }
  };
  const onResync = (r: { id: string }) => {
    if (r.id === SUBS.markets || r.id === SUBS.scores) void merge.reload();
  };
  ctx.feed.stream.on('message', onMessage);
  ctx.feed.stream.on('resync', onResync);
  const scope = { sport_ids: [params.sportId], date: params.date, offset };
  ctx.feed.stream.subscribe(SUBS.markets, 'markets', { ...scope, market_ids: [1, 2, 3], main_line: true });
  ctx.feed.stream.subscribe(SUBS.scores, 'scores', scope);

  await Promise.all([merge.reload(), sportsRead]);
  return () => {
    stopWatching();
    poller?.stop();
    merge.stop();
    tables.clear();
    ctx.feed.stream.unsubscribe(SUBS.markets);
    ctx.feed.stream.unsubscribe(SUBS.scores);
    ctx.feed.stream.off('message', onMessage);
    ctx.feed.stream.off('resync', onResync);
  };
}
