import {
  ForbiddenError,
  logicalMarketId,
  type Event,
  type MarketPrice,
  type Play,
  type PlayerGameStats,
  type Score,
  type ServerMessage,
  type TeamGameStats,
} from '../../packages/client/src/index.ts';
import { type AppContext, booksOf } from './app-context.ts';
import { boardEvent, type BoardEvent, CORE_MARKETS, priceIds, shownQuote } from './board-model.ts';
import { escapeHtml } from './escape.ts';
import { colourOf, lineChartSvg, type ChartSeries } from './line-chart.ts';
import { formatLine, formatPrice } from './odds-format.ts';
import { type Book, matchup, OddsTables } from './odds-table.ts';
import { SnapshotMerge } from './snapshot-merge.ts';

const SUBS = { markets: 'event-markets', live: 'event-live', scores: 'event-scores' } as const;
const NOT_IN_PLAN = '<p class="plan">Not in your plan.</p>';
/** Box scores are read again at most this often while stat frames arrive. */
const BOX_REFRESH_MS = 3000;
const PLAYS_SHOWN = 30;

const inPlay = (id: number) => ({ 1: 41, 2: 42, 3: 43 })[id];

/**
 * An event's page: its odds kept live, openers and closing beside the current line, the line chart
 * of a market per book, the box score, the plays and the live game state (plays, stats and live
 * state need the live-game-state entitlement: a 403 or an in-band `forbidden` says "not in your plan").
 */
export async function showEvent(ctx: AppContext, eventId: string, root: HTMLElement): Promise<() => void> {
  root.innerHTML = `
    <p><a href="#/">← All events</a></p>
    <div id="odds"></div>
    <section aria-labelledby="h-state"><h2 id="h-state">Game state</h2><div id="state"></div></section>
    <section aria-labelledby="h-lines"><h2 id="h-lines">Openers, closing and current line</h2><div id="lines"></div></section>
    <section aria-labelledby="h-chart"><h2 id="h-chart">Line chart</h2>
      <form class="controls" id="chart-form" aria-label="Chart">
        <label>Market <select name="market">${CORE_MARKETS.map((m) => `<option value="${m.id}">${m.label}</option>`).join('')}</select></label>
        <label>Side <select name="side"></select></label>
      </form>
      <div id="chart"></div><ul class="legend" id="legend" aria-label="Books"></ul>
    </section>
    <section aria-labelledby="h-box"><h2 id="h-box">Box score</h2><div id="box"></div></section>
    <section aria-labelledby="h-plays"><h2 id="h-plays">Plays</h2><div id="plays"></div></section>`;
  const $ = <T extends HTMLElement>(sel: string) => root.querySelector<T>(sel)!;
  const tables = new OddsTables($('#odds'), [], ctx.format, false);
  let books: Book[] = [];
  let openers: BoardEvent | undefined;
  let closing: BoardEvent | undefined;
  let liveForbidden = false;
  let plays: Play[] = [];

  const current = () => tables.event(eventId);
  const renderLines = () => {
    const ev = current();
    if (ev) $('#lines').innerHTML = linesHtml(ev, openers, closing, books, ctx.format);
  };
  const renderState = () => {
    const ev = current();
    if (!ev) return;
    if (liveForbidden) $('#state').innerHTML = NOT_IN_PLAN;
    else $('#state').innerHTML = stateHtml(ev.liveGameState);
  };

  const load = async (): Promise<number> => {
    const q = { market_ids: [1, 2, 3], main_line: true } as const;
    const [all, open] = await Promise.all([
      ctx.client.event(eventId, q),
      ctx.client.event(eventId, { ...q, hide_closed: true }),
    ]);
    const e = all.data.events[0];
    if (!e) throw new Error(`event ${eventId} not found`);
    books = booksOf(ctx.affiliates, all.plan);
    tables.show([boardEvent(e, priceIds(open.data.events))], books);
    document.title = `${matchup(current()!)} · oddsbase`;
    renderLines();
    renderState();
    return Math.min(Number(all.data.meta.delta_last_id), Number(open.data.meta.delta_last_id));
  };

  let lastLinesRender = 0;
  let boxTimer: ReturnType<typeof setTimeout> | undefined;
  const merge = new SnapshotMerge(load, (msg) => {
    if (msg.kind === 'market_price') {
      tables.price(msg.data as MarketPrice);
      // The comparison table is drawn whole; at most once a second.
      if (Date.now() - lastLinesRender > 1000) {
        lastLinesRender = Date.now();
        renderLines();
      }
    } else if (msg.kind === 'score' || msg.kind === 'live') {
      const d = msg.data as { score?: Score; live_game_state?: Record<string, unknown> | null };
      if (d.score) tables.score(eventId, d.score);
      const ev = current();
      if (ev && d.live_game_state !== undefined) {
        ev.liveGameState = d.live_game_state ?? undefined;
        renderState();
      }
    } else if (msg.kind === 'play') {
      const play = msg.data as Play;
      if (!plays.some((p) => p.sequence === play.sequence)) {
        plays = [play, ...plays].slice(0, PLAYS_SHOWN);
        $('#plays').innerHTML = playsHtml(plays, current());
      }
    } else if (msg.kind === 'game_stats' && !boxTimer) {
      boxTimer = setTimeout(() => {
        boxTimer = undefined;
        void loadBox();
      }, BOX_REFRESH_MS);
    }
  });

  const loadBox = async () => {
    try {
      const [team, players] = await Promise.all([
        ctx.client.teamGameStats(eventId),
        ctx.client.playerGameStats(eventId),
      ]);
      $('#box').innerHTML = boxHtml(team.data, players.data);
    } catch (err) {
      $('#box').innerHTML =
        err instanceof ForbiddenError ? NOT_IN_PLAN : `<p class="error">${escapeHtml(String(err))}</p>`;
    }
  };
  const loadPlays = async () => {
    try {
      plays = (await ctx.client.plays(eventId, { limit: PLAYS_SHOWN })).data.plays;
      $('#plays').innerHTML = playsHtml(plays, current());
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
      $('#plays').innerHTML = NOT_IN_PLAN;
      // Plays and live game state come with one entitlement (Ultra and above).
      liveForbidden = true;
      renderState();
    }
  };
  const loadMarks = async () => {
    const q = { market_ids: [1, 2, 3], main_line: true } as const;
    const [o, c] = await Promise.all([ctx.client.openers(eventId, q), ctx.client.closing(eventId, q)]);
    const pick = (events: Event[]) => (events[0] ? boardEvent(events[0]) : undefined);
    openers = pick(o.data.events);
    closing = pick(c.data.events);
    renderLines();
  };

  const chartForm = $<HTMLFormElement>('#chart-form');
  const sideSelect = chartForm.elements.namedItem('side') as HTMLSelectElement;
  const marketSelect = chartForm.elements.namedItem('market') as HTMLSelectElement;
  const fillSides = () => {
    const sides = current()?.sides.get(Number(marketSelect.value)) ?? [];
    sideSelect.innerHTML = sides
      .map((s) => `<option value="${s.participantId}">${escapeHtml(s.name)}</option>`)
      .join('');
  };
  const loadChart = async () => {
    const marketId = Number(marketSelect.value);
    const participantId = Number(sideSelect.value);
    const ids = [marketId, inPlay(marketId)].filter((x): x is number => x !== undefined);
    const replies = await Promise.all(
      ids.map((id) => ctx.client.chart(eventId, id, { participant_id: participantId, main_line: true })),
    );
    const byBook = new Map<number, ChartSeries['points'][number][]>();
    for (const r of replies)
      for (const [aff, points] of Object.entries(r.data.series))
        byBook.set(Number(aff), [...(byBook.get(Number(aff)) ?? []), ...points]);
    const series: ChartSeries[] = books
      .filter((b) => byBook.has(b.id))
      .map((b) => ({
        affiliateId: b.id,
        name: b.name,
        points: byBook.get(b.id)!.sort((a, z) => Date.parse(a.t) - Date.parse(z.t)),
      }));
    const market = CORE_MARKETS.find((m) => m.id === logicalMarketId(marketId))!;
    const side = sideSelect.selectedOptions[0]?.textContent ?? '';
    const byLine = market.kind !== 'moneyline';
    $('#chart').innerHTML = lineChartSvg(
      series,
      byLine,
      `${market.label}, ${side}: ${byLine ? 'line value' : 'implied probability'} by book over time`,
    );
    $('#legend').innerHTML = series
      .map(
        (s, i) =>
          `<li><span class="swatch" style="background:${colourOf(i)}" aria-hidden="true"></span>${escapeHtml(s.name)}</li>`,
      )
      .join('');
  };
  chartForm.addEventListener('change', (e) => {
    if ((e.target as HTMLElement).getAttribute('name') === 'market') fillSides();
    void loadChart();
  });

  const onMessage = (msg: ServerMessage) => {
    if (msg.id !== SUBS.markets && msg.id !== SUBS.live && msg.id !== SUBS.scores) return;
    if (msg.type === 'delta') merge.delta(msg);
    else if (msg.type === 'subscribed' && msg.position && msg.id === SUBS.markets) merge.acknowledged(msg.position.id);
    else if (msg.type === 'error' && msg.id === SUBS.live && msg.code === 'forbidden') {
      // Below the live-game-state entitlement: scores alone keep the header current.
      liveForbidden = true;
      renderState();
      ctx.feed.stream.unsubscribe(SUBS.live);
      ctx.feed.stream.subscribe(SUBS.scores, 'scores', { event_ids: [eventId] });
    }
  };
  const onResync = (r: { id: string }) => {
    if (r.id === SUBS.markets || r.id === SUBS.live || r.id === SUBS.scores) void merge.reload();
  };
  ctx.feed.stream.on('message', onMessage);
  ctx.feed.stream.on('resync', onResync);
  ctx.feed.stream.subscribe(SUBS.markets, 'markets', { event_ids: [eventId], market_ids: [1, 2, 3], main_line: true });
  ctx.feed.stream.subscribe(SUBS.live, 'live', { event_ids: [eventId] });

  await merge.reload();
  fillSides();
  await Promise.all([loadMarks(), loadChart(), loadBox(), loadPlays()]);
  return () => {
    merge.stop();
    tables.clear();
    clearTimeout(boxTimer);
    for (const id of Object.values(SUBS)) ctx.feed.stream.unsubscribe(id);
    ctx.feed.stream.off('message', onMessage);
    ctx.feed.stream.off('resync', onResync);
  };
}

function linesHtml(
  ev: BoardEvent,
  openers: BoardEvent | undefined,
  closing: BoardEvent | undefined,
  books: readonly Book[],
  format: AppContext['format'],
): string {
  return CORE_MARKETS.map((m) => {
    const sides = ev.sides.get(m.id) ?? [];
    if (sides.length === 0) return '';
    const cell = (src: BoardEvent | undefined, pid: number, aff: number, role: string) => {
      const q = src && shownQuote(src, m.id, pid, aff);
      if (!q) return '<td>–</td>';
      const line = formatLine(q.line, m.kind, role === 'over' || role === 'under' ? role : 'team');
      return `<td${q.closed ? ' class="closed"' : ''}>${line ? `${escapeHtml(line)} ` : ''}${formatPrice(q.price, format)}</td>`;
    };
    const head = sides.map((s) => `<th scope="colgroup" colspan="3">${escapeHtml(s.name)}</th>`).join('');
    const sub = sides.map(() => '<th scope="col">Open</th><th scope="col">Close</th><th scope="col">Now</th>').join('');
    // Books that never quoted this market are left out rather than shown as rows of dashes.
    const quoted = books.filter((b) =>
      sides.some((s) => [openers, closing, ev].some((src) => src && shownQuote(src, m.id, s.participantId, b.id))),
    );
    const rows = quoted
      .map(
        (b) =>
          `<tr><th scope="row">${escapeHtml(b.name)}</th>${sides
            .map(
              (s) =>
                cell(openers, s.participantId, b.id, s.role) +
                cell(closing, s.participantId, b.id, s.role) +
                cell(ev, s.participantId, b.id, s.role),
            )
            .join('')}</tr>`,
      )
      .join('');
    return `<div class="scroll" tabindex="0" role="region" aria-label="${m.label}: openers, closing and now"><table class="marks"><caption>${m.label}</caption><thead><tr><td></td>${head}</tr><tr><th scope="col">Book</th>${sub}</tr></thead><tbody>${rows}</tbody></table></div>`;
  }).join('');
}

const label = (key: string) => key.replace(/_/g, ' ');

function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '–';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.name === 'string') return o.name;
    return Object.entries(o)
      .map(([k, x]) => `${label(k)}: ${valueText(x)}`)
      .join(', ');
  }
  return String(v);
}

function stateHtml(state: Record<string, unknown> | undefined): string {
  if (!state || Object.keys(state).length === 0) return '<p>No live game state (the game is not in progress).</p>';
  const items = Object.entries(state)
    .map(([k, v]) => `<div><dt>${escapeHtml(label(k))}</dt><dd>${escapeHtml(valueText(v))}</dd></div>`)
    .join('');
  return `<dl class="game-state">${items}</dl>`;
}

function playsHtml(plays: readonly Play[], ev: BoardEvent | undefined): string {
  if (plays.length === 0) return '<p>No plays yet.</p>';
  const team = (id: number | null) => ev?.teams.find((t) => t.team_id === id)?.abbreviation ?? '';
  return `<ol class="plays" reversed>${plays
    .map(
      (p) =>
        `<li value="${p.sequence}"><span class="when">P${p.period} ${escapeHtml(p.display_clock)}</span> <span class="team">${escapeHtml(team(p.team_id))}</span> ${escapeHtml(p.description)} <span class="running">${p.score_away}–${p.score_home}</span></li>`,
    )
    .join('')}</ol>`;
}

/** The player columns shown: the first stats by id that the team's players have. */
const PLAYER_COLUMNS = 8;

function boxHtml(team: TeamGameStats, players: PlayerGameStats): string {
  if (team.length === 0) return '<p>No box score yet (the game has not started).</p>';
  const statNames = new Map<number, string>();
  const values = team.map((g) => {
    const m = new Map<number, string>();
    for (const s of g.stats) {
      statNames.set(s.stat_id, s.stat.abbreviation || s.stat.display_name);
      m.set(s.stat_id, s.value);
    }
    return m;
  });
  const ids = [...statNames.keys()].sort((a, b) => a - b);
  const teamTable = `<div class="scroll" tabindex="0" role="region" aria-label="Team box score"><table class="box"><caption>Teams</caption><thead><tr><th scope="col">Stat</th>${team
    .map((g) => `<th scope="col">${escapeHtml(g.team.abbreviation || g.team.name)}</th>`)
    .join('')}</tr></thead><tbody>${ids
    .map(
      (id) =>
        `<tr><th scope="row">${escapeHtml(statNames.get(id)!)}</th>${values.map((v) => `<td>${escapeHtml(v.get(id) ?? '–')}</td>`).join('')}</tr>`,
    )
    .join('')}</tbody></table></div>`;
  const playerTables = team
    .map((g) => {
      const mine = players.filter((p) => p.player.team_id === g.team.team_id);
      if (mine.length === 0) return '';
      const names = new Map<number, string>();
      for (const p of mine) for (const s of p.stats) names.set(s.stat.id, s.stat.abbreviation || s.stat.display_name);
      const cols = [...names.keys()].sort((a, b) => a - b).slice(0, PLAYER_COLUMNS);
      const rows = mine
        .map((p) => {
          const v = new Map(p.stats.map((s) => [s.stat.id, s.value]));
          return `<tr><th scope="row">${escapeHtml(p.player.display_name)}</th>${cols.map((c) => `<td>${escapeHtml(v.get(c) ?? '–')}</td>`).join('')}</tr>`;
        })
        .join('');
      return `<div class="scroll" tabindex="0" role="region" aria-label="${escapeHtml(g.team.name)} players"><table class="box"><caption>${escapeHtml(g.team.name)}</caption><thead><tr><th scope="col">Player</th>${cols
        .map((c) => `<th scope="col">${escapeHtml(names.get(c)!)}</th>`)
        .join('')}</tr></thead><tbody>${rows}</tbody></table></div>`;
    })
    .join('');
  return teamTable + playerTables;
}
