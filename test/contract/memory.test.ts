import { MemoryCounterStore } from '../../src/store/memory/memory-counter-store.ts';
import { MemoryHistoryStore } from '../../src/store/memory/memory-history.ts';
import { MemoryKeyStore } from '../../src/store/memory/memory-keys.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { counterStoreContract } from './counter-store.contract.ts';
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

counterStoreContract('memory', async () => ({ counters: new MemoryCounterStore(), cleanup: nothingToClean }));
