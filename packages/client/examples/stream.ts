// Stream faces: the dedicated markets stream as an async iterator, the multiplexed endpoint as an
// event emitter with a merged live box score. On Node 20 pass ws's WebSocket.
// Run: ODDSBASE_URL=http://localhost:8080 ODDSBASE_KEY=ob_… node --import tsx examples/stream.ts
import { WebSocket } from 'ws';
import {
  GameStatsMerger,
  marketStream,
  MultiplexStream,
  OddsbaseClient,
  type WebSocketConstructor,
} from '../src/index.ts';

const client = new OddsbaseClient({ baseUrl: process.env.ODDSBASE_URL!, key: process.env.ODDSBASE_KEY });
const opts = { WebSocket: WebSocket as unknown as WebSocketConstructor };

const mux = new MultiplexStream(client, opts);
const box = new GameStatsMerger(client, mux, 'stats');
mux.subscribe('stats', 'stats', { sport_ids: [4] });
box.on('box', (b) =>
  console.log(
    `box ${b.event_id.slice(0, 8)}: ${b.teams.size} teams, ${b.players.size} players${b.complete ? ', final' : ''}`,
  ),
);
mux.on('resync', ({ id, reason }) => console.log(`subscription ${id} restores from REST: ${reason}`));

const prices = marketStream(client, { sport_ids: [4], market_ids: [1, 2, 3] }, opts);
prices.on('open', ({ reconnect }) => reconnect && console.log('reconnected: refresh the board from REST'));
let n = 0;
for await (const p of prices) {
  console.log(`${p.event_id.slice(0, 8)} market ${p.market_id} @${p.affiliate_id}: ${p.previous_price} -> ${p.price}`);
  if (++n === 20) break; // leaving the loop closes the stream
}
mux.close();
