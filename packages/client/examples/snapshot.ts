// Snapshot face: one request, typed body, usage and plan headers, typed errors.
// Run: ODDSBASE_URL=http://localhost:8080 ODDSBASE_KEY=ob_… node --import tsx examples/snapshot.ts
import { displayAmerican, ForbiddenError, noVig, OddsbaseClient, RateLimitError } from '../src/index.ts';

const client = new OddsbaseClient({ baseUrl: process.env.ODDSBASE_URL!, key: process.env.ODDSBASE_KEY });
const today = new Date().toISOString().slice(0, 10);

try {
  const { data, usage, plan } = await client.events(4, today, { market_ids: [1], main_line: false });
  console.log(
    `${data.events.length} games, ${usage.datapoints ?? 0} points, ${plan.tier} with ${plan.dataDelaySeconds} s delay`,
  );
  for (const event of data.events) {
    const moneyline = event.markets.find((m) => m.market_id === 1 || m.market_id === 41);
    const [away, home] = event.teams;
    // Book 19's moneyline; a book without one on this game is skipped (0.0001 is a price, Off Board).
    const prices = moneyline?.participants.map((p) => p.lines[0]?.prices['19']?.price) ?? [];
    if (prices.length < 2 || prices.some((p) => p === undefined)) continue;
    const fair = noVig(prices as number[]);
    console.log(
      `${away!.name} at ${home!.name}: ${(prices as number[]).map(displayAmerican).join(' / ')}`,
      fair ? `fair ${fair.american.join(' / ')}` : '(no fair price)',
    );
  }
} catch (err) {
  if (err instanceof RateLimitError && err.isCap) console.error(`cap reached; resets in ${err.retryAfterMs} ms`);
  else if (err instanceof ForbiddenError) console.error(`not in this plan: ${err.message} (${err.upgradeUrl})`);
  else throw err;
}
