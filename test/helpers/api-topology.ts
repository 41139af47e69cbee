import type { ServeConfig } from '../../src/config.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import { type RunningServer, type StartOptions, startServer } from '../../src/server.ts';

/**
 * Which servers a test server is: `embedded`, one process as `npm start` runs it (the default), or
 * `api`, a writer and an API node following it through a Redis of its own (ODDSBASE_TEST_TOPOLOGY=api,
 * with ODDSBASE_TEST_POSTGRES: set by test/cluster/integration-on-api-node.test.ts).
 */
export const TEST_TOPOLOGY = process.env.ODDSBASE_TEST_TOPOLOGY === 'api' ? 'api' : 'embedded';

/** How long a write on the writer may take to reach the API node. */
const FOLLOW_MS = 10_000;

/**
 * A writer and an API node on one PostgreSQL database, seen by a test as one server: requests and
 * streams go to the node (its url, board, services and metrics), writes to the writer's ledger,
 * whose `apply` resolves once the node has applied the batch too, as the embedded ledger's resolves
 * once its own board has. The simulator, if any, runs on the writer.
 */
export async function startApiTopology(config: ServeConfig, opts: StartOptions): Promise<RunningServer> {
  const { startRedis } = await import('../cluster/services/redis.ts');
  const redis = await startRedis();
  const started: RunningServer[] = [];
  try {
    const writer = await startServer({ ...config, role: 'writer', redisUrl: redis.url }, opts);
    started.push(writer);
    const node = await startServer({ ...config, role: 'api', redisUrl: redis.url, simulator: false }, opts);
    started.push(node);
    const followed = async () => {
      const deadline = Date.now() + FOLLOW_MS;
      while (node.board.head < writer.board.head) {
        if (Date.now() > deadline) throw new Error(`the API node did not follow the writer within ${FOLLOW_MS} ms`);
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    await followed();
    const ledger = new Proxy(writer.ledger, {
      get(target, prop) {
        if (prop === 'apply') {
          return async (...args: Parameters<Ledger['apply']>) => {
            await target.apply(...args);
            await followed();
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return {
      app: node.app,
      board: node.board,
      ledger,
      keys: node.keys,
      counters: node.counters,
      services: node.services,
      simulator: writer.simulator,
      url: node.url,
      metricsUrl: node.metricsUrl,
      async close() {
        await node.close();
        await writer.close();
        await redis.close();
      },
    };
  } catch (err) {
    for (const s of started.reverse()) await s.close();
    await redis.close();
    throw err;
  }
}
