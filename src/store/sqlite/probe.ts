import { describeError } from '../../errors.js';
import { isCorruptionError } from './guard.js';

/** What `moon doctor` learns of the embedded engine: the native modules, and whether the index file opens. */
export type ProbeResult = { ok: true; detail: string } | { ok: false; error: string; corrupt?: boolean };

/** better-sqlite3's native binding and the sqlite-vec extension load in this node. */
export async function probeSqliteModules(): Promise<ProbeResult> {
  try {
    const [{ default: Database }, sqliteVec] = await Promise.all([import('better-sqlite3'), import('sqlite-vec')]);
    const db = new Database(':memory:');
    try {
      sqliteVec.load(db);
      const row = db.prepare('SELECT sqlite_version() AS sqlite, vec_version() AS vec').get() as { sqlite: string; vec: string };
      return { ok: true, detail: `SQLite ${row.sqlite}, sqlite-vec ${row.vec}` };
    } finally {
      db.close();
    }
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

/** The index file opens read-only and its schema can be read (no write, no lock taken). */
export async function probeSqliteFile(path: string): Promise<ProbeResult> {
  try {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT count(*) AS tables FROM sqlite_master WHERE type = 'table'").get() as { tables: number };
      return { ok: true, detail: `${row.tables} tables; ${describePostings(db)}` };
    } finally {
      db.close();
    }
  } catch (error) {
    return { ok: false, error: describeError(error), corrupt: isCorruptionError(error) };
  }
}

/** How word lists are ranked: from the postings, or by FTS5 while the migration's backfill fills them. */
function describePostings(db: import('better-sqlite3').Database): string {
  const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  if (!has('entry_terms') || !has('meta')) return 'word lists ranked by FTS5 (no postings yet: the next `moon index` adds them)';
  if (db.prepare("SELECT 1 FROM meta WHERE key = 'postings_pending'").get() === undefined) return 'word lists ranked from postings (pruned top-k)';
  const done = db.prepare('SELECT count(*) FROM entry_terms').pluck().get() as number;
  const all = db.prepare('SELECT count(*) FROM entries').pluck().get() as number;
  return `postings being filled (${done.toLocaleString('en-US')} of ${all.toLocaleString('en-US')} entries; the next \`moon index\` resumes it): word lists ranked by FTS5 until then`;
}
