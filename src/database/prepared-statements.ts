import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database as SqliteDatabase, Statement as SqliteStatement } from 'better-sqlite3';
import type { Pool } from 'mysql2';
import type { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import type { Dialect } from './batch-statements';
import { ArrayRow, LookupBatches } from './lookup-batches';
import { retryLockConflicts } from './transactions';

type Row = Record<string, unknown>;


export type { ArrayRow };
type Convert = (v: unknown) => unknown;

/**
 * Fixed statements for the hot lookups of every request (a token, a session, a user by name): the
 * SQL is written once, prepared once per connection (better-sqlite3 statements kept here; mysql2's
 * `execute`, which caches server-side prepared statements per pooled connection), and rows are
 * hydrated with the entity's own column metadata. Building the same query through the ORM's query
 * builder on every request was about 45 % of an authenticated request's CPU time. Everything else
 * stays on TypeORM. The connections come from public fields of TypeORM's drivers (`MysqlDriver.pool`,
 * `BetterSqlite3Driver.databaseConnection`), typed by mysql2 and better-sqlite3 themselves.
 */
@Injectable()
export class PreparedStatements {
  private readonly sqliteStatements = new Map<string, SqliteStatement>();
  private readonly sqliteArrayStatements = new Map<string, SqliteStatement>();
  private readonly mysqlBatches = new LookupBatches((sql, params) => this.mysql(sql, params, true) as Promise<ArrayRow[]>);
  private readonly sqliteBatches = new LookupBatches(async (sql, params) => this.sqliteArray(sql).all(...params) as ArrayRow[]);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get isMysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  get dialect(): Dialect {
    return this.isMysql ? 'mysql' : 'sqlite';
  }

  /** Rows of a fixed SELECT (or a statement with RETURNING on SQLite). */
  rows(sql: string, params: unknown[]): Promise<Row[]> {
    if (this.isMysql) return this.mysql(sql, params) as Promise<Row[]>;
    try {
      return Promise.resolve(this.sqlite(sql).all(...params) as Row[]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The first row of a fixed SELECT as an array of its column values (no object with a key per column to
   * build), or undefined. The lookups of concurrent requests share one statement (LookupBatches): on
   * MySQL one round trip, on SQLite one statement and one read lock, where each call on its own paid a
   * fixed cost several times its actual work.
   */
  first(sql: string, params: unknown[]): Promise<ArrayRow | undefined> {
    return (this.isMysql ? this.mysqlBatches : this.sqliteBatches).first(sql, params);
  }

  /**
   * The first row of a fixed `SELECT … WHERE <column> = ?` by a key the column holds exactly as given (a
   * session's or a token's hash), as an array of its column values; concurrent lookups share one
   * `IN (…)` statement (LookupBatches.firstByKey).
   */
  firstByKey(sql: string, key: string): Promise<ArrayRow | undefined> {
    return (this.isMysql ? this.mysqlBatches : this.sqliteBatches).firstByKey(sql, key);
  }

  /** How many hot lookups were asked for and in how many statements they were sent. */
  lookupCounts(): { lookups: number; statements: number } {
    const batches = this.isMysql ? this.mysqlBatches : this.sqliteBatches;
    return { ...batches.counts };
  }

  private sqliteArray(sql: string): SqliteStatement {
    let statement = this.sqliteArrayStatements.get(sql);
    if (!statement) this.sqliteArrayStatements.set(sql, (statement = this.prepareSqlite(sql).raw(true)));
    return statement;
  }

  /** Runs a fixed UPDATE/DELETE; resolves to the number of rows it changed. */
  async run(sql: string, params: unknown[]): Promise<number> {
    if (this.isMysql) return ((await this.mysql(sql, params)) as { affectedRows: number }).affectedRows;
    return this.sqlite(sql).run(...params).changes;
  }

  /** One autocommit statement, run again on a lock conflict as a transaction would be (retryLockConflicts). */
  private mysql(sql: string, params: unknown[], rowsAsArray = false): Promise<unknown> {
    const pool = (this.dataSource.driver as MysqlDriver).pool as Pool;
    return retryLockConflicts(
      () => new Promise((resolve, reject) => pool.execute({ sql, values: params, rowsAsArray }, (err, result) => (err ? reject(err) : resolve(result)))),
    );
  }

  private sqlite(sql: string): SqliteStatement {
    let statement = this.sqliteStatements.get(sql);
    if (!statement) this.sqliteStatements.set(sql, (statement = this.prepareSqlite(sql)));
    return statement;
  }

  private prepareSqlite(sql: string): SqliteStatement {
    return ((this.dataSource.driver as BetterSqlite3Driver).databaseConnection as SqliteDatabase).prepare(sql);
  }


  /** `alias.col, …` for every column of an entity in metadata order: the shape `hydrateAt` reads. */
  columnList(target: EntityTarget<ObjectLiteral>, alias: string): string {
    const q = (name: string) => this.dataSource.driver.escape(name);
    return this.metadata(target)
      .columns.map((c) => `${q(alias)}.${q(c.databaseName)}`)
      .join(', ');
  }

  /** How many values `columnList` selects for an entity. */
  width(target: EntityTarget<ObjectLiteral>): number {
    return this.metadata(target).columns.length;
  }

  /** A table name quoted for the database in use. */
  table(target: EntityTarget<ObjectLiteral>): string {
    return this.dataSource.driver.escape(this.metadata(target).tableName);
  }

  /**
   * An entity from the array row of a `columnList` select, its columns starting at `offset`, converted as
   * TypeORM would: integers, text and booleans directly, SQLite's UTC datetime text to a Date, anything
   * else through the driver.
   */
  hydrateAt<T extends ObjectLiteral>(target: EntityTarget<T>, row: ArrayRow, offset = 0): T {
    const { create, fields } = this.hydrator(target);
    const entity = create() as Row;
    for (let i = 0; i < fields.length; i++) entity[fields[i][0]] = fields[i][1](row[offset + i]);
    return entity as T;
  }

  private readonly hydrators = new Map<EntityTarget<ObjectLiteral>, { create: () => ObjectLiteral; fields: [string, Convert][] }>();

  /** How to build an entity and convert each column (property, converter), in metadata order. */
  private hydrator(target: EntityTarget<ObjectLiteral>) {
    let found = this.hydrators.get(target);
    if (!found) {
      const meta = this.metadata(target);
      const driver = this.dataSource.driver;
      const sqlite = !this.isMysql;
      const Target = meta.target as new () => ObjectLiteral;
      found = {
        create: typeof Target === 'function' ? () => new Target() : () => meta.create(),
        fields: meta.columns.map((column) => {
          const type = column.type;
          let convert: Convert = (v) => driver.prepareHydratedValue(v, column);
          if (!column.transformer) {
            if (type === 'integer' || type === 'varchar' || type === 'text') convert = (v) => (v === undefined ? null : v);
            else if (type === 'boolean') convert = (v) => (v === null || v === undefined ? v : !!v);
            else if (type === 'datetime' && sqlite) convert = (v) => dateFromDatabase(v);
          }
          return [column.propertyName, convert] as [string, Convert];
        }),
      };
      this.hydrators.set(target, found);
    }
    return found;
  }

  /**
   * A date as both databases compare it: UTC `YYYY-MM-DD HH:MM:SS.mmm`, the text SQLite stores through
   * TypeORM, and a literal MySQL reads the same whatever the connection's time zone.
   */
  date(value: Date): string {
    return value.toISOString().replace('T', ' ').replace('Z', '');
  }

  private metadata(target: EntityTarget<ObjectLiteral>): EntityMetadata {
    return this.dataSource.getMetadata(target);
  }
}

/**
 * A datetime as a driver returns it: a Date (mysql2), SQLite's UTC `YYYY-MM-DD HH:MM:SS.mmm` text, or null.
 * That text is read digit by digit (Date.UTC): a session request reads about ten of them, and V8's date string
 * parser cost several times as much (issue 43, profiled). Any other text goes to the parser.
 */
export function dateFromDatabase(value: unknown): Date | null {
  if (value instanceof Date) return value;
  if (typeof value !== 'string') return null;
  const fixed = fixedUtcDate(value);
  return fixed ?? new Date(`${value.replace(' ', 'T')}Z`);
}

/**
 * `YYYY-MM-DD HH:MM:SS` with an optional `.mmm`, as UTC; null for any other text (a day past its month's end,
 * 2026-02-31, included: the parser decides those). The instant is counted here (days from the civil date,
 * Hinnant's `days_from_civil`), so a date costs one call into V8 (`new Date`) instead of three (`Date.UTC`,
 * `new Date`, `getUTCDate`): 180 → 125 ns a date on Node 22 (issue 43). Date.UTC also read years 0–99 as
 * 1900–1999; this does not.
 */
export function fixedUtcDate(text: string): Date | null {
  if ((text.length !== 23 && text.length !== 19) || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32) return null;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || (text.length === 23 && text.charCodeAt(19) !== 46)) return null;
  const year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  const ms = text.length === 23 ? digits(text, 20, 3) : 0;
  if ((year | month | day | hour | minute | second | ms) < 0 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > daysInMonth(year, month)) return null;
  return new Date(daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
}

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1–12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The number written by `length` decimal digits at `start`, or -1. */
function digits(text: string, start: number, length: number): number {
  let n = 0;
  for (let i = start; i < start + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
