import { OddsbaseClient, UnauthorizedError } from '../../packages/client/src/index.ts';
import { type AppContext, today } from './app-context.ts';
import { dayHash, showDay } from './day-view.ts';
import { escapeHtml } from './escape.ts';
import { showEvent } from './event-view.ts';
import { LiveFeed, showConnection } from './live-feed.ts';
import { ODDS_FORMATS, type OddsFormat } from './odds-format.ts';
import { currentSession, demoSession, signIn } from './session.ts';

/** The sport shown first: professional basketball. */
const DEFAULT_SPORT = 4;
const FORMAT_KEY = 'oddsbase.format';

const app = document.getElementById('app')!;
const connection = document.getElementById('connection')!;
// Same origin, no key: the session cookie authenticates every request and each stream token.
const client = new OddsbaseClient({ baseUrl: location.origin });

function savedFormat(): OddsFormat {
  const v = localStorage.getItem(FORMAT_KEY);
  return ODDS_FORMATS.some((f) => f.value === v) ? (v as OddsFormat) : 'american';
}

function showError(err: unknown): void {
  app.innerHTML = `<p class="error" role="alert">Something went wrong: ${escapeHtml(err instanceof Error ? err.message : String(err))}</p>`;
}

function showSignIn(message = ''): void {
  connection.dataset.state = 'offline';
  connection.textContent = 'Signed out';
  app.innerHTML = `
    <form class="sign-in" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign in</h2>
      <p>Enter an API key once: it is exchanged for a session and not kept by this page.</p>
      <label>API key <input name="key" type="password" autocomplete="off" required></label>
      <button type="submit">Sign in</button>
      <p class="error" role="alert">${escapeHtml(message)}</p>
    </form>`;
  const form = app.querySelector('form')!;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const input = form.elements.namedItem('key') as HTMLInputElement;
    signIn(input.value.trim()).then(
      () => void start(),
      (err: Error) => showSignIn(err.message),
    );
  });
}

let ctx: AppContext | undefined;
let leave: (() => void) | undefined;
let routing = 0;

async function route(): Promise<void> {
  if (!ctx) return;
  const turn = ++routing;
  leave?.();
  leave = undefined;
  const hash = location.hash;
  const event = /^#\/event\/([^/]+)$/.exec(hash);
  const day = /^#\/sport\/(\d+)\/(\d{4}-\d{2}-\d{2})$/.exec(hash);
  try {
    const done = event
      ? await showEvent(ctx, decodeURIComponent(event[1]!), app)
      : await showDay(ctx, { sportId: day ? Number(day[1]) : DEFAULT_SPORT, date: day ? day[2]! : today() }, app);
    if (turn === routing) leave = done;
    else done();
  } catch (err) {
    if (err instanceof UnauthorizedError) return void start();
    if (turn === routing) showError(err);
  }
}

async function start(): Promise<void> {
  try {
    // The affiliate listing needs no session: read it beside the session check.
    const affiliates = client.affiliates();
    affiliates.catch(() => undefined);
    const session = (await currentSession()) ?? (await demoSession());
    if (!session) return showSignIn();
    const { data } = await affiliates;
    if (!ctx) {
      const feed = new LiveFeed(client);
      showConnection(feed, connection);
      ctx = {
        client,
        feed,
        affiliates: data.affiliates,
        format: savedFormat(),
        setFormat(format) {
          this.format = format;
          localStorage.setItem(FORMAT_KEY, format);
        },
      };
      window.addEventListener('hashchange', () => void route());
    }
    if (location.hash === '' || location.hash === '#/')
      history.replaceState(null, '', dayHash({ sportId: DEFAULT_SPORT, date: today() }));
    await route();
  } catch (err) {
    showError(err);
  }
}

void start();
