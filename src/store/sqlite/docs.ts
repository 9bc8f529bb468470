import type Database from 'better-sqlite3';
import { DOC_COLUMNS, type DocRow, docFromRow, docQueryWords, docToValues } from '../doc-rows.js';
import type { DocFile, DocHit, DocQuery, DocSection } from '../types.js';
import { type WriteLockOptions, runWriteTransaction } from './write-lock.js';

/** The documents plane on SQLite: table `docs` and its FTS5 index `docs_fts` (same rowids), schema.ts migration 12. */
export function listDocFiles(db: Database.Database, namespaceId: string): DocFile[] {
  const rows = db
    .prepare<[string], { path: string; content_hash: string; sections: number }>(
      'SELECT path, content_hash, count(*) AS sections FROM docs WHERE namespace_id = ? GROUP BY path, content_hash ORDER BY path',
    )
    .all(namespaceId);
  return rows.map((row) => ({ path: row.path, content_hash: row.content_hash, sections: Number(row.sections) }));
}

export function replaceDocFiles(
  db: Database.Database,
  lock: WriteLockOptions,
  namespaceId: string,
  files: readonly { path: string; sections: readonly DocSection[] }[],
): void {
  const old = db.prepare<[string, string], { id: number }>('SELECT id FROM docs WHERE namespace_id = ? AND path = ?');
  const dropFts = db.prepare('DELETE FROM docs_fts WHERE rowid = ?');
  const drop = db.prepare('DELETE FROM docs WHERE id = ?');
  const insert = db.prepare(`INSERT INTO docs (${DOC_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertFts = db.prepare('INSERT INTO docs_fts (rowid, heading, text, path) VALUES (?, ?, ?, ?)');
  runWriteTransaction(
    db,
    () => {
      for (const file of files) {
        for (const row of old.all(namespaceId, file.path)) {
          dropFts.run(row.id);
          drop.run(row.id);
        }
        for (const section of file.sections) {
          const id = Number(insert.run(...docToValues(namespaceId, section)).lastInsertRowid);
          insertFts.run(id, section.heading, section.text, section.path);
        }
      }
    },
    lock,
  );
}

export function searchDocs(db: Database.Database, query: DocQuery): DocHit[] {
  const words = docQueryWords(query.text);
  if (words.length === 0 || query.limit <= 0) return [];
  const match = words.map((word) => `"${word}"`).join(' OR ');
  const scoped = query.namespace_id !== null;
  const rows = db
    .prepare(
      `SELECT ${DOC_COLUMNS.split(', ').map((column) => `d.${column}`).join(', ')}, bm25(docs_fts, 2.0, 1.0, 0.5) AS rank
       FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid
       WHERE docs_fts MATCH ? ${scoped ? 'AND d.namespace_id = ?' : ''} AND (d.expires_at_ms IS NULL OR d.expires_at_ms > ?)
       ORDER BY rank, d.path, d.section LIMIT ?`,
    )
    .all(...(scoped ? [match, query.namespace_id, query.nowMs, query.limit] : [match, query.nowMs, query.limit])) as (DocRow & { rank: number })[];
  return rows.map((row) => ({ section: docFromRow(row), score: -row.rank }));
}

export function readDocs(db: Database.Database, namespaceId: string | null): DocSection[] {
  const sql = `SELECT ${DOC_COLUMNS} FROM docs ${namespaceId === null ? '' : 'WHERE namespace_id = ?'} ORDER BY namespace_id, path, section`;
  const rows = (namespaceId === null ? db.prepare(sql).all() : db.prepare(sql).all(namespaceId)) as DocRow[];
  return rows.map(docFromRow);
}
