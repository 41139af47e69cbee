import type { ChangeRecord, CommitRest, OpenCommit, Store } from './store.ts';

/**
 * The open commit of a store without one of its own (memory, SQLite): the rows are gathered and
 * written by the store's `commit` at `finish`, so it is refused as that commit is.
 */
export function gatheredCommit(store: Pick<Store, 'commit'>): OpenCommit {
  const changes: ChangeRecord[] = [];
  let ended = false;
  const end = () => {
    if (ended) throw new Error('this commit is already finished or aborted');
    ended = true;
  };
  return {
    streams: false,
    add(rows) {
      if (ended) throw new Error('this commit is already finished or aborted');
      for (const r of rows) changes.push(r);
    },
    async finish(rest: CommitRest) {
      end();
      await store.commit({ ...rest, changes });
    },
    async abort() {
      ended = true;
    },
  };
}

/** The store's own open commit, or the gathered one. */
export function openCommit(store: Store): OpenCommit {
  return store.openCommit?.() ?? gatheredCommit(store);
}
