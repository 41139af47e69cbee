// Delta-consumer face: bootstrap from an undelayed snapshot, then poll the markets delta.
// Run: ODDSBASE_URL=http://localhost:8080 ODDSBASE_KEY=ob_… node --import tsx examples/delta.ts
import { displayAmerican, MarketsDeltaConsumer, OddsbaseClient } from '../src/index.ts';

const client = new OddsbaseClient({ baseUrl: process.env.ODDSBASE_URL!, key: process.env.ODDSBASE_KEY });
const today = new Date().toISOString().slice(0, 10);
const consumer = new MarketsDeltaConsumer(client, { scope: { sportId: 4, date: today }, marketIds: [1, 2, 3] });

await consumer.bootstrap();
console.log(`cached ${[...consumer.prices()].length} prices from the snapshot, cursor ${consumer.cursor}`);
for (let i = 0; i < 10; i++) {
  await new Promise((r) => setTimeout(r, 2000));
  const { rows, resynced } = await consumer.poll();
  if (resynced) console.log('cursor refused: rebuilt from a fresh snapshot');
  for (const row of rows) {
    const p = consumer.price(row.event_id, row.market_id, row.participant_id, row.affiliate_id)!;
    console.log(
      `${p.event_id.slice(0, 8)} market ${p.logical_market_id} ${p.participant_name} @${p.affiliate_id}: ${displayAmerican(p.price)}`,
    );
  }
}
