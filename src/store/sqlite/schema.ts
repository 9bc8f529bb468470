import type Database from 'better-sqlite3';
import { buildTrigramBody } from '../../text/trigram.js';
import { type WriteLockOptions, runWriteTransaction } from './write-lock.js';

/**
 * Migrations, applied in order; PRAGMA user_version records how many ran. Append only — never edit a
 * migration that has shipped.
 */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    project TEXT,
    cwd TEXT,
    branch TEXT,
    parent_id TEXT,
    start_ms INTEGER,
    end_ms INTEGER,
    entry_count INTEGER NOT NULL DEFAULT 0,
    filtered_count INTEGER NOT NULL DEFAULT 0,
    skipped TEXT NOT NULL DEFAULT '{}',
    archive_path TEXT,
    projection_path TEXT,
    content_hash TEXT,
    projection_stale INTEGER NOT NULL DEFAULT 1
  );
  CREATE INDEX sessions_project ON sessions(project);

  CREATE TABLE files (
    path TEXT PRIMARY KEY,
    session_id TEXT,
    source TEXT,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    prefix_hash TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL,
    carry TEXT,
    excluded TEXT,
    indexed_ms INTEGER NOT NULL
  );

  CREATE TABLE entries (
    rowid INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    key TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    line INTEGER NOT NULL,
    ts INTEGER,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    tool_name TEXT,
    tool_target TEXT,
    priority TEXT,
    result TEXT,
    result_id TEXT,
    parent_id TEXT,
    sidechain INTEGER NOT NULL DEFAULT 0,
    UNIQUE (session_id, key)
  );
  CREATE INDEX entries_session_seq ON entries(session_id, seq);
  CREATE INDEX entries_ts ON entries(ts);

  CREATE VIRTUAL TABLE entries_fts USING fts5(
    text, role, tool, target, keywords,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );

  CREATE TABLE anchors (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ts INTEGER,
    line INTEGER NOT NULL,
    note TEXT NOT NULL,
    origin_id TEXT,
    PRIMARY KEY (session_id, id)
  );

  CREATE TABLE usage (
    session_id TEXT NOT NULL,
    captured_s INTEGER NOT NULL,
    used_tokens INTEGER NOT NULL,
    max_tokens INTEGER NOT NULL,
    usage_ratio REAL NOT NULL,
    provider TEXT NOT NULL
  );
  CREATE INDEX usage_session ON usage(session_id, captured_s);

  CREATE TABLE runs (
    rowid INTEGER PRIMARY KEY,
    started_ms INTEGER NOT NULL,
    finished_ms INTEGER NOT NULL,
    command TEXT NOT NULL,
    files INTEGER NOT NULL,
    files_changed INTEGER NOT NULL,
    entries INTEGER NOT NULL,
    warnings INTEGER NOT NULL,
    errors INTEGER NOT NULL
  );
  `,
  // 2: trigram index (identifiers, paths, partial words, CJK), vectors, and a key/value meta table.
  `
  CREATE VIRTUAL TABLE entries_tri USING fts5(
    body,
    content = '', contentless_delete = 1,
    tokenize = 'trigram'
  );
  CREATE TABLE embeddings (
    rowid INTEGER PRIMARY KEY,
    vector BLOB NOT NULL
  );
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 3: entries_fts gains a `context` column (neighbouring entries' text); rebuilt by the backfill below.
  `
  DROP TABLE entries_fts;
  CREATE VIRTUAL TABLE entries_fts USING fts5(
    text, role, tool, target, keywords, context,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  INSERT OR REPLACE INTO meta (key, value) VALUES ('rebuild_fts', '1');
  `,
  // 4: session titles and subagent facts; entry kind (reasoning, recap) and structured tool outcomes.
  `
  ALTER TABLE sessions ADD COLUMN title TEXT;
  ALTER TABLE sessions ADD COLUMN agent_type TEXT;
  ALTER TABLE sessions ADD COLUMN agent_description TEXT;
  ALTER TABLE entries ADD COLUMN kind TEXT;
  ALTER TABLE entries ADD COLUMN exit_code INTEGER;
  ALTER TABLE entries ADD COLUMN duration_ms INTEGER;
  ALTER TABLE entries ADD COLUMN status TEXT;
  `,
  // 5: every (session, content hash) the raw archive recorded, with whether its ledger line was written. Rows
  // are inserted in the transaction that commits the file, so two processes never both own one pair.
  `
  CREATE TABLE archived (
    session_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    record TEXT NOT NULL,
    ledgered INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, content_hash)
  );
  CREATE INDEX archived_pending ON archived(ledgered) WHERE ledgered = 0;
  `,
  // 6: each session's candidate keyword terms, so keywords can be ranked by how distinctive they are.
  `
  CREATE TABLE session_terms (
    term TEXT NOT NULL,
    session_id TEXT NOT NULL,
    PRIMARY KEY (term, session_id)
  ) WITHOUT ROWID;
  CREATE INDEX session_terms_session ON session_terms(session_id);
  `,
  // 7: files (and projections) whose processing failed because of what they hold: skipped until they change, so
  // one bad transcript costs one error, not a failure on every run.
  `
  CREATE TABLE failures (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    reason TEXT NOT NULL,
    failed_ms INTEGER NOT NULL
  );
  `,
  // 8: sessions a user took back (`moon forget`): what is left of them, so no later index brings them back.
  `
  CREATE TABLE tombstones (
    session_id TEXT PRIMARY KEY,
    project TEXT,
    reason TEXT NOT NULL,
    forgotten_ms INTEGER NOT NULL
  );
  `,
  // 9: sessions copied here from another index (\`moon migrate\`), so an interrupted copy resumes.
  `
  CREATE TABLE copied (
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    content_hash TEXT,
    PRIMARY KEY (source, session_id)
  );
  `,
  // 10: the trigram body holds technical tokens only (text/trigram.ts): rebuilt by the backfill below.
  `
  DELETE FROM entries_tri;
  `,
  // 11: entries by their own id, for the message ids recall returns (BrowsePort.getEntriesByIds without a session).
  `
  CREATE INDEX IF NOT EXISTS entries_id ON entries(id);
  `,
  // fix patterns (seed 003 part 3): each session's error / pass / edit / claim / commit / revert facts.
  `
  CREATE TABLE IF NOT EXISTS fix_events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    namespace TEXT NOT NULL,
    repo TEXT,
    ts INTEGER,
    kind TEXT NOT NULL,
    signature TEXT,
    target TEXT,
    message_id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE INDEX IF NOT EXISTS fix_events_namespace ON fix_events(namespace, ts);
  `,
  // run digests (plane B): one per session, its lines in a word index of their own (src/store/sqlite/digests.ts).
  `
  CREATE TABLE IF NOT EXISTS run_digests (
    session_id TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    namespace_id TEXT NOT NULL,
    repo TEXT,
    security_scope TEXT NOT NULL,
    trust_class TEXT NOT NULL,
    produced_by TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER,
    record TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS run_digests_namespace ON run_digests(namespace_id, created_at_ms);
  CREATE VIRTUAL TABLE IF NOT EXISTS run_digests_fts USING fts5(body, tokenize = 'porter unicode61');
  `,
  // 12: long-term memory (plane C): curated entries with review state and provenance, and the texts edits replaced.
  `
  CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    namespace_id TEXT NOT NULL,
    repo TEXT,
    scope TEXT NOT NULL,
    review_state TEXT NOT NULL,
    text TEXT NOT NULL,
    provenance TEXT NOT NULL,
    agent_loaded INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 1,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    expires_ms INTEGER
  );
  CREATE INDEX IF NOT EXISTS memories_namespace ON memories(namespace_id, updated_ms);
  CREATE INDEX IF NOT EXISTS memories_expires ON memories(expires_ms) WHERE expires_ms IS NOT NULL;
  CREATE TABLE IF NOT EXISTS memory_versions (
    memory_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    text TEXT NOT NULL,
    replaced_ms INTEGER NOT NULL,
    PRIMARY KEY (memory_id, version)
  );
  `,
  // 12: the documents plane (seed 003): the repository's docs cut into sections, as `doc` records (sqlite/docs.ts).
  `
  CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY,
    namespace_id TEXT NOT NULL,
    path TEXT NOT NULL,
    section INTEGER NOT NULL,
    heading TEXT NOT NULL,
    text TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    line INTEGER NOT NULL,
    repo TEXT,
    security_scope TEXT NOT NULL,
    trust_class TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER,
    run_ref TEXT,
    UNIQUE (namespace_id, path, section)
  );
  CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(heading, text, path, tokenize = 'porter unicode61');
  `,
  // `@/` semantic markers (seed 004 §2): each entry's markers, derived from its stored text at commit and removed
  // with it (sqlite/markers.ts). Existing entries are read by the first MarkerPort.sync (no fingerprint in meta yet).
  `
  CREATE TABLE IF NOT EXISTS markers (
    entry_rowid INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts INTEGER,
    project TEXT,
    type TEXT NOT NULL,
    content TEXT NOT NULL,
    priority INTEGER NOT NULL,
    source_field TEXT NOT NULL,
    line INTEGER NOT NULL,
    context_before TEXT NOT NULL,
    context_after TEXT NOT NULL,
    PRIMARY KEY (entry_rowid, ordinal)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS markers_type ON markers(type, entry_rowid);
  CREATE INDEX IF NOT EXISTS markers_session ON markers(session_id);
  CREATE INDEX IF NOT EXISTS markers_ts ON markers(ts);
  `,
  // Fact folds (FixPort.readFold): each namespace's facts version, changed by triggers on every write that changes
  // what listEvents returns for it — a fact written or removed, a session with facts there added or dropped — and
  // the fold a reader kept for one version, removed by the same triggers (it quotes the facts).
  `
  CREATE TABLE IF NOT EXISTS fact_versions (namespace TEXT PRIMARY KEY, version TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS fact_folds (namespace TEXT PRIMARY KEY, version TEXT NOT NULL, build TEXT NOT NULL, body TEXT NOT NULL) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS fix_events_fact_insert AFTER INSERT ON fix_events BEGIN
    INSERT INTO fact_versions (namespace, version) VALUES (NEW.namespace, lower(hex(randomblob(8))))
      ON CONFLICT (namespace) DO UPDATE SET version = excluded.version;
    DELETE FROM fact_folds WHERE namespace = NEW.namespace;
  END;
  CREATE TRIGGER IF NOT EXISTS fix_events_fact_delete AFTER DELETE ON fix_events BEGIN
    INSERT INTO fact_versions (namespace, version) VALUES (OLD.namespace, lower(hex(randomblob(8))))
      ON CONFLICT (namespace) DO UPDATE SET version = excluded.version;
    DELETE FROM fact_folds WHERE namespace = OLD.namespace;
  END;
  CREATE TRIGGER IF NOT EXISTS fix_events_fact_update AFTER UPDATE ON fix_events BEGIN
    INSERT INTO fact_versions (namespace, version) VALUES (OLD.namespace, lower(hex(randomblob(8)))), (NEW.namespace, lower(hex(randomblob(8))))
      ON CONFLICT (namespace) DO UPDATE SET version = excluded.version;
    DELETE FROM fact_folds WHERE namespace IN (OLD.namespace, NEW.namespace);
  END;
  CREATE TRIGGER IF NOT EXISTS sessions_fact_insert AFTER INSERT ON sessions BEGIN
    UPDATE fact_versions SET version = lower(hex(randomblob(8))) WHERE namespace IN (SELECT namespace FROM fix_events WHERE session_id = NEW.id);
    DELETE FROM fact_folds WHERE namespace IN (SELECT namespace FROM fix_events WHERE session_id = NEW.id);
  END;
  CREATE TRIGGER IF NOT EXISTS sessions_fact_delete AFTER DELETE ON sessions BEGIN
    UPDATE fact_versions SET version = lower(hex(randomblob(8))) WHERE namespace IN (SELECT namespace FROM fix_events WHERE session_id = OLD.id);
    DELETE FROM fact_folds WHERE namespace IN (SELECT namespace FROM fix_events WHERE session_id = OLD.id);
  END;
  `,
  // 17: postings of moon's own for pruned top-k (sqlite/postings.ts): each term's entries in blocks with their
  // maxima, and each entry's terms. Entries indexed before are given theirs by SqliteStore.fillPostings, which
  // resumes where it stopped; until it is done, word lists are ranked by FTS5 alone.
  `
  CREATE TABLE IF NOT EXISTS posting_terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
  CREATE TABLE IF NOT EXISTS postings (
    term_id INTEGER NOT NULL,
    first_rowid INTEGER NOT NULL,
    last_rowid INTEGER NOT NULL,
    n INTEGER NOT NULL,
    n_own INTEGER NOT NULL,
    max_all INTEGER NOT NULL,
    max_own INTEGER NOT NULL,
    min_len INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (term_id, first_rowid)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS entry_terms (rowid INTEGER PRIMARY KEY, terms BLOB NOT NULL);
  INSERT INTO meta (key, value) SELECT 'postings_pending', '1' WHERE EXISTS (SELECT 1 FROM entries)
    ON CONFLICT (key) DO NOTHING;
  `,
  // 18: the fields a session is summarised by (src/fields/, sqlite/session-fields.ts): lengths per session, the
  // texts, and each field's terms. Written where projections are; the next index run fills every session's.
  `
  CREATE TABLE IF NOT EXISTS session_fields (
    session_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    len_title INTEGER NOT NULL,
    len_summary INTEGER NOT NULL,
    len_digest INTEGER NOT NULL,
    len_files INTEGER NOT NULL,
    len_errors INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS session_field_texts (session_id TEXT PRIMARY KEY, texts TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS session_field_terms (
    term TEXT NOT NULL,
    session_id TEXT NOT NULL,
    field INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (term, session_id, field)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS session_field_terms_session ON session_field_terms(session_id);
  CREATE TRIGGER IF NOT EXISTS sessions_fields_delete AFTER DELETE ON sessions BEGIN
    DELETE FROM session_field_terms WHERE session_id = OLD.id;
    DELETE FROM session_field_texts WHERE session_id = OLD.id;
    DELETE FROM session_fields WHERE session_id = OLD.id;
  END;
  `,
];

/** Data a migration must derive in code, run in the same transaction as the migration's SQL. */
const BACKFILLS: Record<number, (db: Database.Database) => void> = {
  1: (db) => {
    const insert = db.prepare('INSERT INTO entries_tri (rowid, body) VALUES (?, ?)');
    // .all(), not .iterate(): better-sqlite3 refuses writes while a read cursor is open on the connection.
    const rows = db.prepare('SELECT rowid, text, tool_target, result FROM entries').all() as {
      rowid: number;
      text: string;
      tool_target: string | null;
      result: string | null;
    }[];
    for (const row of rows) insert.run(row.rowid, buildTrigramBody(row.text, row.tool_target, row.result));
  },
  9: (db) => fillTrigrams(db),
};

/** Every entry's trigram row, built a page at a time (a large index is never read into memory at once). */
function fillTrigrams(db: Database.Database): void {
  const insert = db.prepare('INSERT INTO entries_tri (rowid, body) VALUES (?, ?)');
  const page = db.prepare<[number], { rowid: number; text: string; tool_target: string | null; result: string | null }>(
    'SELECT rowid, text, tool_target, result FROM entries WHERE rowid > ? ORDER BY rowid LIMIT 500',
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after);
    if (rows.length === 0) return;
    for (const row of rows) insert.run(row.rowid, buildTrigramBody(row.text, row.tool_target, row.result));
    after = rows[rows.length - 1]!.rowid;
  }
}

/**
 * Apply pending migrations. Another process may be migrating the same file: each step takes the write lock
 * and reads the version again inside it, so a step runs exactly once.
 */
export function migrate(db: Database.Database, lock: WriteLockOptions): void {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  while (version() < MIGRATIONS.length) {
    runWriteTransaction(
      db,
      () => {
        const index = version();
        if (index >= MIGRATIONS.length) return;
        db.exec(MIGRATIONS[index]!);
        BACKFILLS[index]?.(db);
        db.pragma(`user_version = ${index + 1}`);
      },
      lock,
    );
  }
}
