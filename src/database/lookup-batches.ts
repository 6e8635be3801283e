/** One row as its column values in SELECT order. */
export type ArrayRow = unknown[];

/** At most this many lookups share one statement (a bounded number of prepared shapes per statement). */
export const MAX_BATCH = 16;

interface Waiting {
  params: unknown[];
  resolve: (row: ArrayRow | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * The hot lookups of concurrent requests (a session, a token, a user by name): those of one statement
 * asked for in the same turn of the event loop go to the database as one `UNION ALL` statement, each
 * part still its own indexed lookup with its own bound parameters. On MySQL/MariaDB a round trip (its
 * socket write, the driver's packet parsing, the server's execution) was most of an authenticated
 * request's cost; on SQLite each statement's fixed cost (its read lock is two fcntl calls) was several
 * times the lookup itself. A burst of N requests now pays it once (docs/decisions.md, "The front door").
 * Every lookup is still made after its request arrived and answered by the database, never by a cache.
 */
export class LookupBatches {
  private pending = new Map<string, Waiting[]>();
  private scheduled = false;
  private readonly shapes = new Map<string, string>();
  /** Lookups asked for and statements sent, since start: their ratio is the mean batch size. */
  readonly counts = { lookups: 0, statements: 0 };

  constructor(private readonly execute: (sql: string, params: unknown[]) => Promise<ArrayRow[]>) {}

  /** The first row of a fixed `SELECT …` for these parameters. */
  first(sql: string, params: unknown[]): Promise<ArrayRow | undefined> {
    this.counts.lookups++;
    return new Promise((resolve, reject) => {
      let waiting = this.pending.get(sql);
      if (!waiting) this.pending.set(sql, (waiting = []));
      waiting.push({ params, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the poll phase: every request read in this turn has asked by then.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = new Map();
    for (const [sql, waiting] of pending) {
      for (let i = 0; i < waiting.length; i += MAX_BATCH) this.send(sql, waiting.slice(i, i + MAX_BATCH));
    }
  }

  private send(sql: string, batch: Waiting[]): void {
    const params = batch.length === 1 ? batch[0].params : batch.flatMap((w) => w.params);
    let answer: Promise<ArrayRow[]>;
    this.counts.statements++;
    try {
      answer = this.execute(this.shape(sql, batch.length), params);
    } catch (err) {
      return batch.forEach((w) => w.reject(err));
    }
    answer.then(
      (rows) => {
        const found: (ArrayRow | undefined)[] = new Array(batch.length);
        try {
          for (const row of rows) {
            const index = Number(row[0]);
            found[index] ??= row.slice(1);
          }
        } catch (err) {
          // An answer of an unexpected shape: every waiter hears of it, none is left hanging.
          return batch.forEach((w) => w.reject(err));
        }
        batch.forEach((w, i) => w.resolve(found[i]));
      },
      (err) => batch.forEach((w) => w.reject(err)),
    );
  }

  /** `SELECT 0 AS batch_index, … UNION ALL SELECT 1 AS batch_index, … …` (no parentheses: SQLite takes none), built once per size. */
  private shape(sql: string, size: number): string {
    const key = `${size}|${sql}`;
    let shaped = this.shapes.get(key);
    if (!shaped) {
      if (!/^SELECT /i.test(sql)) throw new Error('only a SELECT can be batched');
      const rest = sql.slice('SELECT '.length);
      shaped = Array.from({ length: size }, (_, i) => `SELECT ${i} AS batch_index, ${rest}`).join(' UNION ALL ');
      this.shapes.set(key, shaped);
    }
    return shaped;
  }
}
