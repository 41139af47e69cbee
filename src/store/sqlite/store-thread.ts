import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A thread of the store with a connection of its own: `source` is CommonJS run by the worker, which
 * finds the driver's path in `workerData.driver` and the database file in `workerData.file`. It
 * holds statements and a connection, and its data lives outside its heap: a small heap is plenty.
 */
export function startThread(source: string, file: string, data: Record<string, unknown> = {}): Worker {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Worker(source, {
    eval: true,
    workerData: { ...data, file, driver },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  });
}

/**
 * Sends a store thread 'stop' (it closes its connection after the messages before) and resolves when
 * it has exited; the process is held open until then, or it could exit first.
 */
export function stopThread(worker: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    worker.ref();
    worker.once('exit', () => resolve());
    worker.postMessage('stop');
  });
}
