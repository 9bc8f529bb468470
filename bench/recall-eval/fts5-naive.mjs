// fts5-naive: a reference point computed by the harness itself, not by moon. One SQLite FTS5 table
// (tokenize='porter unicode61'), one row per turn (its content), the question's words OR-ed, turns ranked by bm25(),
// sessions ranked by their best turn.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO } from './convert.mjs';
import { turnIdFor } from './longmemeval.mjs';

/**
 * The FTS5 query of a question: its whitespace-separated words, each quoted (a double quote doubled), OR-ed.
 * Words with no letter or digit are dropped (an empty phrase matches nothing and some are syntax errors).
 * '' when nothing is left.
 */
export function ftsMatchQuery(text) {
  return String(text ?? '')
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .map((word) => `"${word.replace(/"/g, '""')}"`)
    .join(' OR ');
}

/**
 * The top `limit` turns and the top `limit` sessions from turns ranked best first ({ sessionId, turn }): a session
 * ranks by its best turn. Stops reading `rows` (any iterable) once both lists are full.
 */
export function rankFromTurns(rows, limit) {
  const turnRanked = [];
  const sessionRanked = [];
  for (const row of rows) {
    if (turnRanked.length < limit) turnRanked.push(turnIdFor(row.sessionId, row.turn));
    if (sessionRanked.length < limit && !sessionRanked.includes(row.sessionId)) sessionRanked.push(row.sessionId);
    if (turnRanked.length >= limit && sessionRanked.length >= limit) break;
  }
  return { turnRanked, sessionRanked };
}

/**
 * An in-memory FTS5 index of sessions (collectSessions' values). search(question, limit) returns
 * { turnRanked: [turn ids], sessionRanked: [session ids] }, each at most `limit` long; close() frees it.
 */
export function createFtsIndex(sessions) {
  const Database = createRequire(join(REPO, 'package.json'))('better-sqlite3');
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE turns USING fts5(text, session_id UNINDEXED, turn UNINDEXED, tokenize='porter unicode61')");
  const insert = db.prepare('INSERT INTO turns (text, session_id, turn) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const session of sessions) {
      session.turns.forEach((turn, index) => insert.run(typeof turn.content === 'string' ? turn.content : '', session.sessionId, index));
    }
  })();
  // bm25() is lower for better matches; rowid breaks ties so the order is stable.
  const ranked = db.prepare('SELECT session_id AS sessionId, turn FROM turns WHERE turns MATCH ? ORDER BY bm25(turns), rowid');
  return {
    search(question, limit) {
      const query = ftsMatchQuery(question);
      if (query === '') return { turnRanked: [], sessionRanked: [] };
      return rankFromTurns(ranked.iterate(query), limit);
    },
    close() {
      db.close();
    },
  };
}
