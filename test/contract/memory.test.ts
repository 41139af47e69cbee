import { MemoryCounters } from '../../src/access/counters/memory-counters.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { MemoryCounterStore } from '../../src/store/memory/memory-counter-store.ts';
import { MemoryHistoryStore } from '../../src/store/memory/memory-history.ts';
import { MemoryAdminTokenStore, MemoryKeyStore } from '../../src/store/memory/memory-secrets.ts';
import { adminTokenStoreContract } from './admin-tokens.contract.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { busContract } from './bus.contract.ts';
import { counterStoreContract } from './counter-store.contract.ts';
import { countersContract } from './counters.contract.ts';
import { historyContract } from './history.contract.ts';
import { keyStoreContract } from './keys.contract.ts';
import { storeContract } from './store.contract.ts';

// Nothing to remove after a case: the data goes with the objects.
const nothingToClean = async (): Promise<void> => {};

storeContract('memory', async () => ({ store: new MemoryStore(), cleanup: nothingToClean }));

historyContract('memory', async () => {
  const store = new MemoryStore();
  return { store, history: new MemoryHistoryStore(store), cleanup: nothingToClean };
});

keyStoreContract('memory', async () => ({ keys: new MemoryKeyStore(), cleanup: nothingToClean }));

adminTokenStoreContract('memory', async () => ({ tokens: new MemoryAdminTokenStore(), cleanup: nothingToClean }));

counterStoreContract('memory', async () => ({ counters: new MemoryCounterStore(), cleanup: nothingToClean }));

busContract('memory', async () => {
  const errors: unknown[] = [];
  const bus = new MemoryBus((err) => errors.push(err));
  return { publisher: bus, subscriber: bus, errors, cleanup: () => bus.close() };
});

// One process is one node: its counters are the view every caller shares, settled at once.
countersContract('memory', async (now) => ({
  nodes: [new MemoryCounters(now)],
  settle: async () => {},
  cleanup: nothingToClean,
}));
