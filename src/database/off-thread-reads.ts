import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';

type Row = Record<string, unknown>;

/**
 * Long reads of the lists on SQLite, off the event loop (issue 21). better-sqlite3 runs a statement
 * synchronously, so a count or a deep page over 500,000 sessions (about 100 ms each) held every other
 * request, ping included, while four clients paged. Those SELECTs go to a worker thread with its own
 * read-only connection; writes and the hot lookups stay on the service's connection. Reads see what is
 * committed, as any other connection would. MySQL needs none of this (its driver is asynchronous).
 */
export class OffThreadReads {
  private readonly worker: Worker;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (err: Error) => void }>();

  constructor(file: string) {
    this.worker = new Worker(join(__dirname, 'sqlite-read-worker.js'), { workerData: { file } });
    this.worker.unref();
    this.worker.on('message', ({ id, rows, error }: { id: number; rows?: Row[]; error?: { message: string; code?: string } }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (!waiting) return;
      if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
      else waiting.resolve(rows ?? []);
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', () => this.failAll(new Error('the SQLite read worker stopped')));
  }

  rows(sql: string, params: unknown[]): Promise<Row[]> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, sql, params });
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }

  private failAll(err: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }
}

const readers = new WeakMap<DataSource, OffThreadReads | null>();

/** The off-thread reader of a SQLite DataSource (made on first use), or null on MySQL or an in-memory database. */
export function offThreadReads(dataSource: DataSource): OffThreadReads | null {
  let reader = readers.get(dataSource);
  if (reader === undefined) {
    const file = dataSource.options.type === 'better-sqlite3' ? String(dataSource.options.database) : '';
    reader = file && file !== ':memory:' ? new OffThreadReads(file) : null;
    readers.set(dataSource, reader);
  }
  return reader;
}

/** Stops the reader of a DataSource when the application closes. */
export async function closeOffThreadReads(dataSource: DataSource): Promise<void> {
  const reader = readers.get(dataSource);
  readers.delete(dataSource);
  await reader?.close();
}
