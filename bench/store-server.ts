/**
 * A server over an existing data directory, built with or without the access layer, for
 * bench/access.ts and bench/delta.ts: `node --import tsx bench/store-server.ts DATA_DIR PORT with|without`.
 * No simulator runs, so it serves a still board.
 */
import { compose } from '../src/compose.ts';
import { resolveServeConfig } from '../src/config.ts';

const [dataDir, port, mode] = process.argv.slice(2);
if (!dataDir || !port || (mode !== 'with' && mode !== 'without')) {
  process.stderr.write('usage: store-server.ts DATA_DIR PORT with|without\n');
  process.exit(2);
}
// Logging as `oddsbase serve` does by default, so the numbers include what it costs.
const config = resolveServeConfig({ dataDir, port, host: '127.0.0.1', simulator: false }, {});
const services = await compose(config, { withoutAccess: mode === 'without' });
await services.app.listen({ port: config.port, host: config.host });
process.once('SIGTERM', () => void services.close().then(() => process.exit(0)));
