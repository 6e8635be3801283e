/** One row as its column values in SELECT order. */
export type ArrayRow = unknown[];

/** At most this many lookups share one statement (a bounded number of prepared shapes per statement). */
export const MAX_BATCH = 16;

/** `SELECT <columns> FROM <from> WHERE <key> = ?`, the form `firstByKey` takes. */
const KEYED = /^SELECT (.+) FROM (.+) WHERE ([\w.`"]+) = \?$/s;

/** A keyed lookup's parts, and its `IN (…)` statement by number of distinct keys. */
interface KeyedStatement {
  columns: string;
  from: string;
  key: string;
  shapes: Map<number, string>;
}

interface Waiting {
  params: unknown[];
  resolve: (row: ArrayRow | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * The hot lookups of concurrent requests (a session, a token, a user by name): those of one statement
 * asked for in the same turn of the event loop go to the database as one statement: `UNION ALL` parts, each
 * still its own indexed lookup with its own bound parameters, or, for a lookup by one exact key (a session's
 * or a token's hash, `firstByKey`), one `IN (…)` over the batch's distinct keys. On MySQL/MariaDB a round trip (its
 * socket write, the driver's packet parsing, the server's execution) was most of an authenticated
 * request's cost; on SQLite each statement's fixed cost (its read lock is two fcntl calls) was several
 * times the lookup itself. A burst of N requests now pays it once (docs/decisions.md, "The front door").
 * Every lookup is still made after its request arrived and answered by the database, never by a cache.
 */
export class LookupBatches {
  private pending = new Map<string, Waiting[]>();
  private scheduled = false;
  private readonly shapes = new Map<string, string>();
  private readonly keyed = new Map<string, KeyedStatement>();
  /** Lookups asked for and statements sent, since start: their ratio is the mean batch size. */
  readonly counts = { lookups: 0, statements: 0 };

  constructor(private readonly execute: (sql: string, params: unknown[]) => Promise<ArrayRow[]>) {}

  /** The first row of a fixed `SELECT …` for these parameters. */
  first(sql: string, params: unknown[]): Promise<ArrayRow | undefined> {
    return this.enqueue(sql, params);
  }

  /**
   * The first row of a fixed `SELECT … WHERE <key column> = ?` for one key that the column stores exactly as
   * given (a hex hash: no collation can make two keys equal). A batch is one `WHERE <key column> IN (…)` over
   * its distinct keys, each row matched back to its lookups by the key it carries: MariaDB executed twelve
   * lookups as one `IN` for 155–190 µs of its CPU against 415–440 µs as twelve `UNION ALL` parts
   * (docs/decisions.md, issue 43); SQLite costs the same either way.
   */
  firstByKey(sql: string, key: string): Promise<ArrayRow | undefined> {
    if (!this.keyed.has(sql)) {
      const match = KEYED.exec(sql);
      if (!match) return Promise.reject(new Error('a keyed lookup is SELECT … WHERE <column> = ?'));
      this.keyed.set(sql, { columns: match[1], from: match[2], key: match[3], shapes: new Map() });
    }
    return this.enqueue(sql, [key]);
  }

  private enqueue(sql: string, params: unknown[]): Promise<ArrayRow | undefined> {
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
    const keyed = this.keyed.get(sql);
    if (keyed) return this.sendKeyed(keyed, batch);
    // One part per distinct lookup: the same credential asked twice in a turn is read once.
    const part = new Map<string, number>();
    const partParams: unknown[][] = [];
    const partOf = batch.map((w) => {
      const key = batch.length === 1 ? '' : JSON.stringify(w.params);
      let index = part.get(key);
      if (index === undefined) {
        part.set(key, (index = partParams.length));
        partParams.push(w.params);
      }
      return index;
    });
    const params = partParams.length === 1 ? partParams[0] : partParams.flat();
    this.answer(() => this.shape(sql, partParams.length), params, batch, (rows) => {
      const found: (ArrayRow | undefined)[] = new Array(partParams.length);
      for (const row of rows) found[Number(row[0])] ??= row.slice(1);
      return partOf.map((i) => found[i]);
    });
  }

  private sendKeyed(keyed: KeyedStatement, batch: Waiting[]): void {
    const keys = [...new Set(batch.map((w) => w.params[0] as string))];
    const shape = () => {
      let sql = keyed.shapes.get(keys.length);
      if (!sql) {
        sql = `SELECT ${keyed.key} AS batch_key, ${keyed.columns} FROM ${keyed.from} WHERE ${keyed.key} IN (${keys.map(() => '?').join(', ')})`;
        keyed.shapes.set(keys.length, sql);
      }
      return sql;
    };
    this.answer(shape, keys, batch, (rows) => {
      const byKey = new Map<unknown, ArrayRow>();
      for (const row of rows) if (!byKey.has(row[0])) byKey.set(row[0], row.slice(1));
      return batch.map((w) => byKey.get(w.params[0]));
    });
  }

  /** Sends one statement; every lookup of the batch hears its own row (`pick`), or the statement's error. */
  private answer(sql: () => string, params: unknown[], batch: Waiting[], pick: (rows: ArrayRow[]) => (ArrayRow | undefined)[]): void {
    let answer: Promise<ArrayRow[]>;
    this.counts.statements++;
    try {
      answer = this.execute(sql(), params);
    } catch (err) {
      return batch.forEach((w) => w.reject(err));
    }
    answer.then(
      (rows) => {
        let found: (ArrayRow | undefined)[];
        try {
          found = pick(rows);
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
