import type { MarketPrice, Score } from '../../packages/client/src/index.ts';
import {
  applyPrice,
  bestBooks,
  type BoardEvent,
  closeMissing,
  CORE_MARKETS,
  type CoreKind,
  moveDirection,
  type Quote,
  type Side,
  shownQuote,
} from './board-model.ts';
import { escapeHtml } from './escape.ts';
import { formatLine, formatPrice, type OddsFormat } from './odds-format.ts';

export interface Book {
  id: number;
  name: string;
}

/** Events drawn in the first task; the rest follow a few per task. */
const FIRST_DRAWN = 8;
const DRAWN_PER_TASK = 12;

/** How long a moved price stays highlighted. */
const MOVE_HIGHLIGHT_MS = 2500;

const cellKey = (eventId: string, logical: number, participantId: number, affiliateId: number) =>
  `${eventId}|${logical}|${participantId}|${affiliateId}`;

const STATUS_TEXT: Record<string, string> = {
  STATUS_SCHEDULED: 'Scheduled',
  STATUS_IN_PROGRESS: 'In progress',
  STATUS_HALFTIME: 'Halftime',
  STATUS_FINAL: 'Final',
  STATUS_POSTPONED: 'Postponed',
  STATUS_CANCELED: 'Canceled',
};

export function matchup(ev: BoardEvent): string {
  return `${ev.teams[0]?.name ?? 'Away'} at ${ev.teams[1]?.name ?? 'Home'}`;
}

const startTime = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });

/** The event's status line: start time, status, score and clock. */
export function eventStateHtml(ev: BoardEvent): string {
  const s: Score | undefined = ev.score;
  const status = s?.event_status ?? 'STATUS_SCHEDULED';
  const parts = [`<time datetime="${escapeHtml(ev.startsAt)}">${escapeHtml(startTime(ev.startsAt))}</time>`];
  parts.push(
    `<span class="status" data-status="${escapeHtml(status)}">${escapeHtml(s?.event_status_detail || STATUS_TEXT[status] || status)}</span>`,
  );
  if (s && status !== 'STATUS_SCHEDULED') {
    parts.push(`<span class="score" aria-label="Score">${s.score_away}–${s.score_home}</span>`);
    if (status === 'STATUS_IN_PROGRESS' && s.display_clock)
      parts.push(`<span class="clock">P${s.game_period} ${escapeHtml(s.display_clock)}</span>`);
  }
  return parts.join(' · ');
}

function sideLabel(ev: BoardEvent, side: Side): string {
  const rot = side.role === 'away' ? ev.rotationAway : side.role === 'home' ? ev.rotationHome : undefined;
  return `${rot ? `<span class="rot">${rot}</span> ` : ''}${escapeHtml(side.name)}`;
}

function quoteHtml(q: Quote | undefined, kind: CoreKind, side: Side, format: OddsFormat): string {
  if (!q) return '<span class="none" aria-label="no price">–</span>';
  const role = side.role === 'over' || side.role === 'under' ? side.role : 'team';
  const line = formatLine(q.line, kind, role);
  const price = formatPrice(q.price, format);
  return (
    (line ? `<span class="line">${escapeHtml(line)}</span> ` : '') +
    `<span class="price">${price}</span>` +
    (q.closed ? '<span class="tag">closed</span>' : '')
  );
}

/**
 * The odds of events as tables (one per event: books as columns, each logical market's sides as
 * rows) kept current in place: a price row updates its one cell and its side's best-price marks.
 */
export class OddsTables {
  private readonly events = new Map<string, BoardEvent>();
  private cells = new Map<string, HTMLTableCellElement>();
  /** Counts full draws: a later one stops the rest of an earlier one. */
  private drawing = 0;
  private readonly timers = new Map<HTMLTableCellElement, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly root: HTMLElement,
    private books: readonly Book[],
    private format: OddsFormat,
    /** Whether each event's heading links to its page (the day screen) or not (the event page). */
    private readonly linkEvents: boolean,
  ) {}

  /** Replaces everything shown with these events. */
  show(events: readonly BoardEvent[], books: readonly Book[]): void {
    this.books = books;
    this.events.clear();
    for (const ev of events) this.events.set(ev.id, ev);
    this.render();
  }

  setFormat(format: OddsFormat): void {
    this.format = format;
    this.render();
  }

  event(id: string): BoardEvent | undefined {
    return this.events.get(id);
  }

  /** A price row of the markets stream: its cell and its side's best marks. */
  price(row: MarketPrice): void {
    const ev = this.events.get(row.event_id);
    if (!ev) return;
    const change = applyPrice(ev, row);
    if (!change) return;
    const market = CORE_MARKETS.find((m) => m.id === change.logical)!;
    const side = ev.sides.get(change.logical)!.find((s) => s.participantId === change.participantId)!;
    const cell = this.cells.get(cellKey(ev.id, change.logical, change.participantId, change.affiliateId));
    if (!cell) {
      // A side or book the tables did not have: draw this event's table again.
      this.renderEvent(ev);
      return;
    }
    cell.innerHTML = quoteHtml(change.after, market.kind, side, this.format);
    this.mark(cell, change.after);
    const dir = moveDirection(change.before, change.after);
    if (dir) this.flash(cell, dir);
    this.markBest(ev, market.kind, change.logical, side);
  }

  /** Marks the quotes whose price is not among `openPriceIds` closed, and redraws their sides' cells. */
  closeMissing(openPriceIds: ReadonlySet<string>): void {
    for (const ev of this.events.values()) {
      const sides = new Set(closeMissing(ev, openPriceIds).map((c) => `${c.logical}:${c.participantId}`));
      for (const key of sides) {
        const [logical, participantId] = key.split(':').map(Number) as [number, number];
        const market = CORE_MARKETS.find((m) => m.id === logical)!;
        const side = ev.sides.get(logical)?.find((s) => s.participantId === participantId);
        if (!side) continue;
        for (const b of this.books) {
          const cell = this.cells.get(cellKey(ev.id, logical, participantId, b.id));
          const q = shownQuote(ev, logical, participantId, b.id);
          if (!cell) continue;
          cell.innerHTML = quoteHtml(q, market.kind, side, this.format);
          this.mark(cell, q);
        }
        this.markBest(ev, market.kind, logical, side);
      }
    }
  }

  score(eventId: string, score: Score): void {
    const ev = this.events.get(eventId);
    if (!ev) return;
    ev.score = score;
    const el = this.root.querySelector<HTMLElement>(`[data-state-of="${CSS.escape(eventId)}"]`);
    if (el) el.innerHTML = eventStateHtml(ev);
  }

  clear(): void {
    this.drawing++;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * Draws the first events at once and the rest in later tasks, so the first screenful shows
   * without waiting for a long day's tables. A cell drawn late is drawn from the model, which
   * stream rows and closed marks have kept current meanwhile.
   */
  private render(): void {
    const drawing = ++this.drawing;
    const events = [...this.events.values()];
    this.cells = new Map();
    this.root.innerHTML = events
      .slice(0, FIRST_DRAWN)
      .map((ev) => this.eventHtml(ev))
      .join('');
    this.index(this.root);
    const more = (from: number) => {
      if (drawing !== this.drawing || from >= events.length) return;
      const holder = document.createElement('div');
      holder.innerHTML = events
        .slice(from, from + DRAWN_PER_TASK)
        .map((ev) => this.eventHtml(ev))
        .join('');
      this.index(holder);
      this.root.append(...holder.children);
      setTimeout(() => more(from + DRAWN_PER_TASK), 0);
    };
    setTimeout(() => more(FIRST_DRAWN), 0);
  }

  private renderEvent(ev: BoardEvent): void {
    const old = this.root.querySelector(`[data-event="${CSS.escape(ev.id)}"]`);
    // Not drawn yet: it will be, from the model.
    if (!old) return;
    const holder = document.createElement('div');
    holder.innerHTML = this.eventHtml(ev);
    this.index(holder);
    old.replaceWith(...holder.children);
  }

  private index(within: HTMLElement): void {
    for (const td of within.querySelectorAll<HTMLTableCellElement>('td[data-k]')) this.cells.set(td.dataset.k!, td);
  }

  private eventHtml(ev: BoardEvent): string {
    const title = escapeHtml(matchup(ev));
    const heading = this.linkEvents ? `<a href="#/event/${encodeURIComponent(ev.id)}">${title}</a>` : title;
    const head = this.books.map((b) => `<th scope="col">${escapeHtml(b.name)}</th>`).join('');
    const groups = CORE_MARKETS.map((m) => {
      const sides = ev.sides.get(m.id) ?? [];
      if (sides.length === 0) return '';
      const best = new Map(sides.map((s) => [s.participantId, bestBooks(ev, m.kind, m.id, s, this.bookIds())]));
      const rows = sides.map((side) => {
        const cells = this.books.map((b) => {
          const q = shownQuote(ev, m.id, side.participantId, b.id);
          const cls = this.classes(q, best.get(side.participantId)!.has(b.id));
          return `<td data-k="${escapeHtml(cellKey(ev.id, m.id, side.participantId, b.id))}" data-updated="${escapeHtml(q?.updatedAt ?? '')}"${cls ? ` class="${cls}"` : ''}>${quoteHtml(q, m.kind, side, this.format)}</td>`;
        });
        return `<tr><th scope="row">${sideLabel(ev, side)}</th>${cells.join('')}</tr>`;
      });
      return `<tbody><tr class="market"><th scope="rowgroup" colspan="${this.books.length + 1}">${m.label}</th></tr>${rows.join('')}</tbody>`;
    }).join('');
    const table = groups
      ? `<div class="scroll" tabindex="0" role="region" aria-label="Odds, ${title}"><table class="odds"><caption class="sr-only">Odds by sportsbook, ${title}</caption><thead><tr><th scope="col">Side</th>${head}</tr></thead>${groups}</table></div>`
      : '<p class="empty">No odds yet.</p>';
    return `<article class="event" data-event="${escapeHtml(ev.id)}"><h2>${heading}</h2><p class="state" data-state-of="${escapeHtml(ev.id)}">${eventStateHtml(ev)}</p>${table}</article>`;
  }

  private bookIds(): number[] {
    return this.books.map((b) => b.id);
  }

  private classes(q: Quote | undefined, best: boolean): string {
    const c: string[] = [];
    if (best) c.push('best');
    if (q?.closed) c.push('closed');
    if (q && formatPrice(q.price, this.format) === 'OFF') c.push('off');
    return c.join(' ');
  }

  private mark(cell: HTMLTableCellElement, q: Quote | undefined): void {
    cell.dataset.updated = q?.updatedAt ?? '';
    cell.classList.toggle('closed', q?.closed === true);
    cell.classList.toggle('off', q !== undefined && formatPrice(q.price, this.format) === 'OFF');
  }

  private markBest(ev: BoardEvent, kind: CoreKind, logical: number, side: Side): void {
    const best = bestBooks(ev, kind, logical, side, this.bookIds());
    for (const b of this.books)
      this.cells.get(cellKey(ev.id, logical, side.participantId, b.id))?.classList.toggle('best', best.has(b.id));
  }

  private flash(cell: HTMLTableCellElement, dir: 'up' | 'down'): void {
    // A newer move of the same cell restarts its highlight rather than being cut short by the older one.
    clearTimeout(this.timers.get(cell));
    cell.classList.remove('moved-up', 'moved-down');
    cell.classList.add(`moved-${dir}`);
    cell.insertAdjacentHTML(
      'beforeend',
      `<span class="arrow" aria-label="${dir === 'up' ? 'moved up' : 'moved down'}">${dir === 'up' ? '▲' : '▼'}</span>`,
    );
    this.timers.set(
      cell,
      setTimeout(() => {
        this.timers.delete(cell);
        cell.classList.remove('moved-up', 'moved-down');
        cell.querySelector('.arrow')?.remove();
      }, MOVE_HIGHLIGHT_MS),
    );
  }
}
