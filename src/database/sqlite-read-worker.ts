import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { REGEX_STATEMENT_BUDGET_MS } from './linear-regex';
import { registerSqliteFunctions, setRegexDeadline } from './sqlite-functions';

/**
 * The other end of `OffThreadReads`: a read-only connection to the service's SQLite file in a worker
 * thread, answering SELECTs. WAL lets it read beside the service's own connection.
 */
const db = new Database((workerData as { file: string }).file, { readonly: true, fileMustExist: true, timeout: 10000 });
registerSqliteFunctions(db);
const statements = new Map<string, Database.Statement>();

parentPort!.on('message', ({ id, sql, params }: { id: number; sql: string; params: unknown[] }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size > 200) statements.clear();
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    // Every statement gets the regex budget; only those with a regex lookup ever look at it.
    setRegexDeadline(REGEX_STATEMENT_BUDGET_MS);
    parentPort!.postMessage({ id, rows: statement.all(...params) });
  } catch (err) {
    const e = err as { message?: string; code?: string };
    parentPort!.postMessage({ id, error: { message: String(e?.message ?? err), code: e?.code } });
  }
});
