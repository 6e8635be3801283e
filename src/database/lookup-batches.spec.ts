import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ArrayRow, LookupBatches, MAX_BATCH } from './lookup-batches';

/** A real SQLite database behind the batches, with every statement it is given recorded. */
function batchesOnSqlite() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, owner TEXT)');
  const insert = db.prepare('INSERT INTO t (id, name, owner) VALUES (?, ?, ?)');
  for (let i = 1; i <= 40; i++) insert.run(i, `n${i}`, `owner of n${i}`);
  const statements: { sql: string; params: unknown[] }[] = [];
  const batches = new LookupBatches(async (sql, params) => {
    statements.push({ sql, params });
    return db.prepare(sql).raw(true).all(...params) as ArrayRow[];
  });
  return { batches, statements };
}

const BY_NAME = 'SELECT t.id, t.owner FROM t WHERE t.name = ?';

describe('LookupBatches', () => {
  it('answers the lookups asked in one turn with one statement, each with its own row', async () => {
    const { batches, statements } = batchesOnSqlite();
    const names = ['n3', 'missing', 'n7', 'n3', 'n12'];
    const rows = await Promise.all(names.map((name) => batches.first(BY_NAME, [name])));
    assert.deepEqual(rows, [[3, 'owner of n3'], undefined, [7, 'owner of n7'], [3, 'owner of n3'], [12, 'owner of n12']]);
    assert.equal(statements.length, 1);
    // One part per distinct lookup: "n3" asked twice is read once.
    assert.equal((statements[0].sql.match(/UNION ALL/g) ?? []).length, 3);
    assert.deepEqual(statements[0].params, ['n3', 'missing', 'n7', 'n12']);
  });

  it('keeps lookups apart that differ in any parameter, or in its type', async () => {
    const { batches, statements } = batchesOnSqlite();
    const sql = 'SELECT t.owner FROM t WHERE t.name = ? AND t.id = ?';
    const rows = await Promise.all([batches.first(sql, ['n2', 2]), batches.first(sql, ['n2', '2']), batches.first(sql, ['n2', 3]), batches.first(sql, ['n2', 2])]);
    assert.deepEqual(rows, [['owner of n2'], ['owner of n2'], undefined, ['owner of n2']]);
    assert.deepEqual(statements[0].params, ['n2', 2, 'n2', '2', 'n2', 3]);
  });

  it('splits a burst into statements of at most MAX_BATCH lookups and keeps statements apart', async () => {
    const { batches, statements } = batchesOnSqlite();
    const names = Array.from({ length: MAX_BATCH * 2 + 3 }, (_, i) => `n${i + 1}`);
    const byId = batches.first('SELECT t.name FROM t WHERE t.id = ?', [5]);
    const rows = await Promise.all(names.map((name) => batches.first(BY_NAME, [name])));
    assert.deepEqual(await byId, ['n5']);
    rows.forEach((row, i) => assert.deepEqual(row, [i + 1, `owner of n${i + 1}`]));
    assert.deepEqual(statements.map((s) => s.params.length).sort((a, b) => a - b), [1, 3, MAX_BATCH, MAX_BATCH]);
  });

  it('sends a later turn its own statement', async () => {
    const { batches, statements } = batchesOnSqlite();
    assert.deepEqual(await batches.first(BY_NAME, ['n1']), [1, 'owner of n1']);
    assert.deepEqual(await batches.first(BY_NAME, ['n2']), [2, 'owner of n2']);
    assert.equal(statements.length, 2);
  });

  it('rejects every lookup of a statement that fails, and only those', async () => {
    const { batches } = batchesOnSqlite();
    const bad = [batches.first('SELECT t.nope FROM t WHERE t.id = ?', [1]), batches.first('SELECT t.nope FROM t WHERE t.id = ?', [2])];
    const good = batches.first(BY_NAME, ['n4']);
    for (const lookup of bad) await assert.rejects(lookup, /no such column/);
    assert.deepEqual(await good, [4, 'owner of n4']);
  });

  it('takes only SELECT statements', async () => {
    const { batches } = batchesOnSqlite();
    await assert.rejects(batches.first('UPDATE t SET owner = ? WHERE id = 1', ['x']), /only a SELECT/);
  });

  it('answers lookups by one exact key with one IN statement over the distinct keys, each with its own row', async () => {
    const { batches, statements } = batchesOnSqlite();
    const names = ['n3', 'missing', 'n7', 'n3', 'n12', 'N7'];
    const rows = await Promise.all(names.map((name) => batches.firstByKey(BY_NAME, name)));
    assert.deepEqual(rows, [[3, 'owner of n3'], undefined, [7, 'owner of n7'], [3, 'owner of n3'], [12, 'owner of n12'], undefined]);
    assert.equal(statements.length, 1);
    assert.equal(statements[0].sql, 'SELECT t.name AS batch_key, t.id, t.owner FROM t WHERE t.name IN (?, ?, ?, ?, ?)');
    assert.deepEqual(statements[0].params, ['n3', 'missing', 'n7', 'n12', 'N7']);
  });

  it('splits keyed lookups into statements of at most MAX_BATCH and keeps them apart from other statements', async () => {
    const { batches, statements } = batchesOnSqlite();
    const names = Array.from({ length: MAX_BATCH + 2 }, (_, i) => `n${i + 1}`);
    const byId = batches.first('SELECT t.name FROM t WHERE t.id = ?', [5]);
    const rows = await Promise.all(names.map((name) => batches.firstByKey(BY_NAME, name)));
    assert.deepEqual(await byId, ['n5']);
    rows.forEach((row, i) => assert.deepEqual(row, [i + 1, `owner of n${i + 1}`]));
    assert.deepEqual(statements.map((s) => s.params.length).sort((a, b) => a - b), [1, 2, MAX_BATCH]);
  });

  it('takes a keyed lookup only in the form SELECT … FROM … WHERE <column> = ?', async () => {
    const { batches, statements } = batchesOnSqlite();
    await assert.rejects(batches.firstByKey('SELECT t.id FROM t WHERE t.name = ? AND t.id > 0', 'n1'), /a keyed lookup is/);
    await assert.rejects(batches.firstByKey('UPDATE t SET owner = ? WHERE id = 1', 'x'), /a keyed lookup is/);
    assert.equal(statements.length, 0);
  });

  it('rejects every keyed lookup of a statement that fails', async () => {
    const { batches } = batchesOnSqlite();
    const bad = ['n1', 'n2'].map((name) => batches.firstByKey('SELECT t.nope FROM t WHERE t.name = ?', name));
    for (const lookup of bad) await assert.rejects(lookup, /no such column/);
  });
});
