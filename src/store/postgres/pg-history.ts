import type { HistoryQuery, PriceRecord } from '../history.ts';
import { PackedLogHistory } from '../packed-log-history.ts';
import { POSTGRES } from '../sql/dialect.ts';
import {
  firstRowsStatement,
  type HistoryStatement,
  lastRowsStatement,
  logRowsStatement,
} from '../sql/history-reads.ts';
import type { PgPool } from './database.ts';
import type { PgPackedRows } from './pg-packed.ts';

/**
 * History reads over the change log in PostgreSQL (packed events as PackedLogHistory reads them):
 * the statements of sql/history-reads.ts, run on the pool.
 */
export class PgHistoryStore extends PackedLogHistory {
  constructor(
    private readonly pool: PgPool,
    packed: PgPackedRows,
  ) {
    super(packed);
  }

  protected async logRows(q: HistoryQuery): Promise<PriceRecord[]> {
    const statement = logRowsStatement(POSTGRES, q);
    return statement ? this.run(statement) : [];
  }

  protected logFirstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    return this.run(firstRowsStatement(POSTGRES, priceIds, uptoId));
  }

  protected logLastRows(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    return this.run(lastRowsStatement(POSTGRES, priceIds, cutoff, uptoId));
  }

  private async run(statement: HistoryStatement): Promise<PriceRecord[]> {
    return (await this.pool.query<PriceRecord>(statement.sql, statement.args)).rows;
  }
}
