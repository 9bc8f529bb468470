import type { PgClient } from './client.js';

/**
 * Migrations of the PostgreSQL engine, applied in order under a transaction-level advisory lock, so of several
 * processes opening one database at once exactly one applies each step. `moon.migrations` records them. Append
 * only — never edit a migration that has shipped.
 *
 * Everything lives in the `moon` schema, so a team can point moon at a database that holds other things.
 * Every row carries a `namespace` (the session's project, '' when it has none): the isolation rules of the
 * memory planes filter on it.
 */
/**
 * A statement trigger made anew (dropped first, so its migration can run again) with the transition tables its event
 * has: new rows for INSERT, old rows for DELETE, both for UPDATE.
 */
function replaceStatementTrigger(name: string, event: 'INSERT' | 'DELETE' | 'UPDATE', table: string, fn: string): string {
  const transition = { INSERT: 'NEW TABLE AS new_rows', DELETE: 'OLD TABLE AS old_rows', UPDATE: 'OLD TABLE AS old_rows NEW TABLE AS new_rows' }[event];
  return `DROP TRIGGER IF EXISTS ${name} ON ${table};
  CREATE TRIGGER ${name} AFTER ${event} ON ${table} REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();`;
}

const MIGRATIONS: string[] = [
  `
  CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
  CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;

  CREATE TABLE moon.sessions (
    id text PRIMARY KEY,
    namespace text NOT NULL DEFAULT '',
    machine text,
    source text NOT NULL,
    path text NOT NULL,
    project text,
    cwd text,
    branch text,
    parent_id text,
    start_ms bigint,
    end_ms bigint,
    entry_count integer NOT NULL DEFAULT 0,
    filtered_count integer NOT NULL DEFAULT 0,
    skipped jsonb NOT NULL DEFAULT '{}',
    archive_path text,
    projection_path text,
    content_hash text,
    projection_stale boolean NOT NULL DEFAULT true,
    title text,
    agent_type text,
    agent_description text
  );
  CREATE INDEX sessions_project ON moon.sessions (lower(project));
  CREATE INDEX sessions_namespace ON moon.sessions (namespace);
  CREATE INDEX sessions_start ON moon.sessions (start_ms);

  CREATE TABLE moon.files (
    machine text NOT NULL,
    path text NOT NULL,
    namespace text NOT NULL DEFAULT '',
    session_id text,
    source text,
    size bigint NOT NULL,
    mtime_ms double precision NOT NULL,
    prefix_hash text NOT NULL,
    content_hash text NOT NULL,
    "offset" bigint NOT NULL,
    line integer NOT NULL,
    carry jsonb,
    excluded text,
    indexed_ms bigint NOT NULL,
    PRIMARY KEY (machine, path)
  );
  CREATE INDEX files_session ON moon.files (session_id);

  -- One row per entry. tv holds the word index (labels: A text, B tool and target, C identifiers, D neighbours'
  -- text), doc_len the entry's token count over every column (BM25's document length), tri the trigram body.
  CREATE TABLE moon.entries (
    rowid bigserial PRIMARY KEY,
    namespace text NOT NULL DEFAULT '',
    session_id text NOT NULL,
    key text NOT NULL,
    id text NOT NULL,
    seq bigint NOT NULL,
    line integer NOT NULL,
    ts bigint,
    role text NOT NULL,
    text text NOT NULL,
    tool_name text,
    tool_target text,
    priority text,
    result text,
    result_id text,
    parent_id text,
    sidechain boolean NOT NULL DEFAULT false,
    kind text,
    exit_code integer,
    duration_ms bigint,
    status text,
    tv tsvector NOT NULL DEFAULT ''::tsvector,
    doc_len integer NOT NULL DEFAULT 0,
    tri text NOT NULL DEFAULT '',
    tri_len integer NOT NULL DEFAULT 0,
    UNIQUE (session_id, key)
  );
  CREATE INDEX entries_session_seq ON moon.entries (session_id, seq);
  CREATE INDEX entries_ts ON moon.entries (ts);
  CREATE INDEX entries_namespace ON moon.entries (namespace);
  CREATE INDEX entries_tv ON moon.entries USING gin (tv);
  CREATE INDEX entries_tri ON moon.entries USING gin (tri public.gin_trgm_ops);

  -- Vectors: the column's dimension is set when a model is chosen (moon.meta 'embedding_model').
  CREATE TABLE moon.embeddings (
    rowid bigint PRIMARY KEY REFERENCES moon.entries (rowid) ON DELETE CASCADE,
    namespace text NOT NULL DEFAULT '',
    vector public.vector NOT NULL
  );

  CREATE TABLE moon.meta (key text PRIMARY KEY, value text NOT NULL);

  CREATE TABLE moon.anchors (
    session_id text NOT NULL,
    id text NOT NULL,
    namespace text NOT NULL DEFAULT '',
    ts bigint,
    line integer NOT NULL,
    note text NOT NULL,
    origin_id text,
    PRIMARY KEY (session_id, id)
  );

  CREATE TABLE moon.usage (
    session_id text NOT NULL,
    namespace text NOT NULL DEFAULT '',
    captured_s bigint NOT NULL,
    used_tokens bigint NOT NULL,
    max_tokens bigint NOT NULL,
    usage_ratio double precision NOT NULL,
    provider text NOT NULL,
    PRIMARY KEY (session_id, captured_s, provider)
  );

  CREATE TABLE moon.runs (
    rowid bigserial PRIMARY KEY,
    machine text,
    started_ms bigint NOT NULL,
    finished_ms bigint NOT NULL,
    command text NOT NULL,
    files integer NOT NULL,
    files_changed integer NOT NULL,
    entries integer NOT NULL,
    warnings integer NOT NULL,
    errors integer NOT NULL
  );

  -- Each MOON_HOME keeps its own raw archive and ledger: pairs are per machine, each line written once.
  CREATE TABLE moon.archived (
    seq bigserial,
    machine text NOT NULL,
    session_id text NOT NULL,
    content_hash text NOT NULL,
    namespace text NOT NULL DEFAULT '',
    record jsonb NOT NULL,
    ledgered boolean NOT NULL DEFAULT false,
    PRIMARY KEY (machine, session_id, content_hash)
  );

  CREATE TABLE moon.session_terms (
    term text NOT NULL,
    session_id text NOT NULL,
    namespace text NOT NULL DEFAULT '',
    PRIMARY KEY (term, session_id)
  );
  CREATE INDEX session_terms_session ON moon.session_terms (session_id);

  CREATE TABLE moon.failures (
    machine text NOT NULL,
    key text NOT NULL,
    kind text NOT NULL,
    path text NOT NULL,
    fingerprint text NOT NULL,
    reason text NOT NULL,
    failed_ms bigint NOT NULL,
    PRIMARY KEY (machine, key)
  );

  CREATE TABLE moon.tombstones (
    session_id text PRIMARY KEY,
    namespace text NOT NULL DEFAULT '',
    project text,
    reason text NOT NULL,
    forgotten_ms bigint NOT NULL
  );

  -- moon migrate: which sessions of a source index were copied, so an interrupted copy resumes.
  CREATE TABLE moon.copied (
    source text NOT NULL,
    session_id text NOT NULL,
    content_hash text,
    PRIMARY KEY (source, session_id)
  );
  `,
  // 2: the BM25 scoring functions (see lexical.ts). Phrase frequency weighs each occurrence by its column.
  `
  CREATE FUNCTION moon.phrase_freq(tv tsvector, lexemes text[], labels text, weights float8[]) RETURNS float8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH occ AS (
      SELECT u.lexeme, x.pos::int AS pos, x.w AS w
      FROM unnest(tv) u, unnest(u.positions, u.weights) AS x(pos, w)
      WHERE u.lexeme = ANY (lexemes)
    )
    SELECT coalesce(sum(CASE o.w WHEN 'A' THEN weights[1] WHEN 'B' THEN CASE WHEN o.pos < 8208 THEN weights[2] ELSE weights[3] END
                                 WHEN 'C' THEN weights[4] ELSE weights[5] END), 0)
    FROM occ o
    WHERE o.lexeme = lexemes[1] AND strpos(labels, o.w) > 0
      AND NOT EXISTS (
        SELECT 1 FROM generate_series(2, coalesce(array_length(lexemes, 1), 1)) j
        WHERE NOT EXISTS (
          SELECT 1 FROM occ n WHERE n.lexeme = lexemes[j] AND n.pos = o.pos + j - 1 AND n.w = o.w
            
        )
      )
  $$;

  CREATE FUNCTION moon.bm25(tv tsvector, doc_len integer, phrases text[], labels text[], idf float8[], avgdl float8,
                            weights float8[]) RETURNS float8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(sum(idf[i] * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * doc_len / avgdl))), 0)
    FROM generate_subscripts(phrases, 1) i,
         LATERAL (SELECT moon.phrase_freq(tv, string_to_array(phrases[i], ' '), labels[i], weights) AS f) freq
  $$;

  CREATE FUNCTION moon.count_substr(hay text, needle text) RETURNS integer
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
  DECLARE
    n integer := 0;
    start integer := 1;
    found integer;
  BEGIN
    IF needle = '' THEN RETURN 0; END IF;
    LOOP
      found := strpos(substr(hay, start), needle);
      EXIT WHEN found = 0;
      n := n + 1;
      start := start + found;
    END LOOP;
    RETURN n;
  END
  $$;

  CREATE FUNCTION moon.bm25_substr(tri text, tri_len integer, needles text[], idf float8[], avgdl float8) RETURNS float8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(sum(idf[i] * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * tri_len / avgdl))), 0)
    FROM generate_subscripts(needles, 1) i,
         LATERAL (SELECT moon.count_substr(tri, needles[i])::float8 AS f) freq
  $$;
  `,
  // 3: prefix phrases ("wrangl*" finds "wrangler": a last lexeme ending in * matches every lexeme it starts),
  // and phrases counted by one grouping on (position - index, label) instead of a scan per occurrence.
  `
  CREATE OR REPLACE FUNCTION moon.phrase_freq(tv tsvector, lexemes text[], labels text, weights float8[]) RETURNS float8
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH wanted AS (
      SELECT j, CASE WHEN right(lexemes[j], 1) = '*' THEN left(lexemes[j], -1) ELSE lexemes[j] END AS lexeme,
             right(lexemes[j], 1) = '*' AS prefix
      FROM generate_subscripts(lexemes, 1) j
    ),
    matched AS (
      SELECT w.j, u.positions, u.weights FROM unnest(tv) u
      JOIN wanted w ON CASE WHEN w.prefix THEN starts_with(u.lexeme, w.lexeme) ELSE u.lexeme = w.lexeme END
    ),
    -- A phrase occurrence is a start position holding lexeme j at start + j for every j, under one label.
    starts AS (
      SELECT x.pos::int - m.j AS start, x.w AS w FROM matched m, unnest(m.positions, m.weights) AS x(pos, w)
      WHERE strpos(labels, x.w) > 0
      GROUP BY 1, 2
      HAVING count(DISTINCT m.j) = cardinality(lexemes)
    )
    SELECT coalesce(sum(CASE s.w WHEN 'A' THEN weights[1] WHEN 'B' THEN CASE WHEN s.start + 1 < 8208 THEN weights[2] ELSE weights[3] END
                                 WHEN 'C' THEN weights[4] ELSE weights[5] END), 0)
    FROM starts s
  $$;
  `,
  // 4: the tool name's own tsvector (it weighs more than the target, which shares its label in tv), so word
  // frequencies come from ts_rank_cd over each phrase instead of unnesting every matching row; filled for
  // existing rows from tv's tool positions.
  `
  ALTER TABLE moon.entries ADD COLUMN tool_tv tsvector NOT NULL DEFAULT ''::tsvector;
  UPDATE moon.entries e SET tool_tv = coalesce((
    SELECT string_agg('''' || replace(u.lexeme, '''', '''''') || ''':' || (
      SELECT string_agg(p::text || 'B', ',') FROM unnest(u.positions) p WHERE p BETWEEN 8192 AND 8207
    ), ' ')
    FROM unnest(e.tv) u WHERE EXISTS (SELECT 1 FROM unnest(u.positions) p WHERE p BETWEEN 8192 AND 8207)
  ), '')::tsvector
  WHERE e.tool_name IS NOT NULL;
  `,
  // 5: BM25's corpus totals (rows, word and trigram lengths) kept by statement triggers, instead of a scan of
  // every entry per query. Writers of entries hold the ingest lock, so the one counter row is never contended.
  `
  CREATE TABLE moon.corpus (
    id integer PRIMARY KEY CHECK (id = 1),
    rows bigint NOT NULL,
    tokens bigint NOT NULL,
    tri_tokens bigint NOT NULL
  );
  INSERT INTO moon.corpus SELECT 1, count(*), coalesce(sum(doc_len), 0), coalesce(sum(tri_len), 0) FROM moon.entries;
  CREATE FUNCTION moon.count_corpus() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      UPDATE moon.corpus SET rows = rows + n, tokens = tokens + t, tri_tokens = tri_tokens + tt
      FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS t, coalesce(sum(tri_len), 0) AS tt FROM new_rows) d;
    ELSIF TG_OP = 'DELETE' THEN
      UPDATE moon.corpus SET rows = rows - n, tokens = tokens - t, tri_tokens = tri_tokens - tt
      FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS t, coalesce(sum(tri_len), 0) AS tt FROM old_rows) d;
    ELSE
      UPDATE moon.corpus SET tokens = tokens + (SELECT coalesce(sum(doc_len), 0) FROM new_rows) - (SELECT coalesce(sum(doc_len), 0) FROM old_rows),
        tri_tokens = tri_tokens + (SELECT coalesce(sum(tri_len), 0) FROM new_rows) - (SELECT coalesce(sum(tri_len), 0) FROM old_rows);
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER corpus_insert AFTER INSERT ON moon.entries REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_corpus();
  CREATE TRIGGER corpus_delete AFTER DELETE ON moon.entries REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_corpus();
  CREATE TRIGGER corpus_update AFTER UPDATE ON moon.entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_corpus();
  `,
  // 6: each lexeme's document frequency — rows holding it anywhere, and in the entry's own columns (labels A–C)
  // — so BM25's IDF of a one-word phrase is read instead of counting every matching row per query. Statement
  // triggers append each write's per-lexeme change to moon.lexeme_changes (no index, no conflict), and
  // moon.fold_lexemes(), called by every writing engine transaction before it commits, adds them up into
  // moon.lexemes once per transaction: a batch of files pays one upsert per distinct lexeme, not one per file.
  // Rows whose word index did not change are left out.
  `
  CREATE TABLE moon.lexemes (
    lexeme text PRIMARY KEY,
    rows bigint NOT NULL,
    own_rows bigint NOT NULL
  );
  CREATE TABLE moon.lexeme_changes (
    lexeme text NOT NULL,
    rows bigint NOT NULL,
    own_rows bigint NOT NULL
  );
  INSERT INTO moon.lexemes
    SELECT u.lexeme, count(*), count(*) FILTER (WHERE u.weights && '{A,B,C}'::text[])
    FROM moon.entries e, unnest(e.tv) u GROUP BY u.lexeme;
  CREATE FUNCTION moon.count_lexemes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO moon.lexeme_changes
        SELECT u.lexeme, count(*), count(*) FILTER (WHERE u.weights && '{A,B,C}'::text[])
        FROM new_rows n, unnest(n.tv) u GROUP BY u.lexeme;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO moon.lexeme_changes
        SELECT u.lexeme, -count(*), -count(*) FILTER (WHERE u.weights && '{A,B,C}'::text[])
        FROM old_rows o, unnest(o.tv) u GROUP BY u.lexeme;
    ELSE
      INSERT INTO moon.lexeme_changes
        SELECT u.lexeme, sum(c.sign), coalesce(sum(c.sign) FILTER (WHERE u.weights && '{A,B,C}'::text[]), 0)
        FROM (SELECT o.tv, -1 AS sign FROM old_rows o JOIN new_rows n ON n.rowid = o.rowid WHERE n.tv IS DISTINCT FROM o.tv
              UNION ALL
              SELECT n.tv, 1 FROM new_rows n JOIN old_rows o ON o.rowid = n.rowid WHERE n.tv IS DISTINCT FROM o.tv) c,
          unnest(c.tv) u
        GROUP BY u.lexeme;
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE FUNCTION moon.fold_lexemes() RETURNS void LANGUAGE sql AS $$
    WITH taken AS (DELETE FROM moon.lexeme_changes RETURNING lexeme, rows, own_rows)
    INSERT INTO moon.lexemes AS l (lexeme, rows, own_rows)
      SELECT lexeme, sum(rows), sum(own_rows) FROM taken GROUP BY lexeme
    ON CONFLICT (lexeme) DO UPDATE SET rows = l.rows + excluded.rows, own_rows = l.own_rows + excluded.own_rows;
  $$;
  CREATE TRIGGER lexemes_insert AFTER INSERT ON moon.entries REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_lexemes();
  CREATE TRIGGER lexemes_delete AFTER DELETE ON moon.entries REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_lexemes();
  CREATE TRIGGER lexemes_update AFTER UPDATE ON moon.entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_lexemes();
  `,
  // 7: entries by their own id, for the message ids recall returns (BrowsePort.getEntriesByIds without a session).
  `
  CREATE INDEX IF NOT EXISTS entries_id ON moon.entries (id);
  `,
  // fix patterns (seed 003 part 3): each session's error / pass / edit / claim / commit / revert facts.
  `
  CREATE TABLE IF NOT EXISTS moon.fix_events (
    session_id text NOT NULL,
    seq bigint NOT NULL,
    namespace text NOT NULL,
    repo text,
    ts bigint,
    kind text NOT NULL,
    signature text,
    target text,
    message_id text NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE INDEX IF NOT EXISTS fix_events_namespace ON moon.fix_events (namespace, ts);
  `,
  // run digests (plane B): one per session; the word index is a generated tsvector (src/store/postgres/digests.ts).
  `
  CREATE TABLE IF NOT EXISTS moon.run_digests (
    session_id text PRIMARY KEY,
    content_hash text NOT NULL,
    namespace_id text NOT NULL,
    repo text,
    security_scope text NOT NULL,
    trust_class text NOT NULL,
    produced_by text NOT NULL,
    created_at_ms bigint NOT NULL,
    expires_at_ms bigint,
    record jsonb NOT NULL,
    body text NOT NULL,
    tv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED
  );
  CREATE INDEX IF NOT EXISTS run_digests_namespace ON moon.run_digests (namespace_id, created_at_ms);
  CREATE INDEX IF NOT EXISTS run_digests_tv ON moon.run_digests USING gin (tv);
  `,
  // 8: long-term memory (plane C): curated entries with review state and provenance, and the texts edits replaced.
  `
  CREATE TABLE IF NOT EXISTS moon.memories (
    id text PRIMARY KEY,
    namespace_id text NOT NULL,
    repo text,
    scope text NOT NULL,
    review_state text NOT NULL,
    text text NOT NULL,
    provenance jsonb NOT NULL,
    agent_loaded boolean NOT NULL DEFAULT false,
    version integer NOT NULL DEFAULT 1,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    expires_ms bigint
  );
  CREATE INDEX IF NOT EXISTS memories_namespace ON moon.memories (namespace_id, updated_ms);
  CREATE INDEX IF NOT EXISTS memories_expires ON moon.memories (expires_ms) WHERE expires_ms IS NOT NULL;
  CREATE TABLE IF NOT EXISTS moon.memory_versions (
    memory_id text NOT NULL,
    version integer NOT NULL,
    text text NOT NULL,
    replaced_ms bigint NOT NULL,
    PRIMARY KEY (memory_id, version)
  );
  `,
  // 8: the documents plane (seed 003): the repository's docs cut into sections, as `doc` records (postgres/docs.ts).
  `
  CREATE TABLE IF NOT EXISTS moon.docs (
    namespace_id text NOT NULL,
    path text NOT NULL,
    section integer NOT NULL,
    heading text NOT NULL,
    text text NOT NULL,
    content_hash text NOT NULL,
    line integer NOT NULL,
    repo text,
    security_scope text NOT NULL,
    trust_class text NOT NULL,
    created_at_ms bigint NOT NULL,
    expires_at_ms bigint,
    run_ref text,
    body tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english', heading), 'A') || to_tsvector('english', text) || setweight(to_tsvector('simple', path), 'C')
    ) STORED,
    PRIMARY KEY (namespace_id, path, section)
  );
  CREATE INDEX IF NOT EXISTS docs_body ON moon.docs USING gin (body);
  `,
  // `@/` semantic markers (seed 004 §2): each entry's markers, derived from its stored text at commit and removed
  // with it (postgres/markers.ts). Existing entries are read by the first MarkerPort.sync (no fingerprint yet).
  `
  CREATE TABLE IF NOT EXISTS moon.markers (
    entry_rowid bigint NOT NULL REFERENCES moon.entries (rowid) ON DELETE CASCADE,
    ordinal integer NOT NULL,
    session_id text NOT NULL,
    entry_id text NOT NULL,
    seq bigint NOT NULL,
    ts bigint,
    namespace text NOT NULL DEFAULT '',
    type text NOT NULL,
    content text NOT NULL,
    priority integer NOT NULL,
    source_field text NOT NULL,
    line integer NOT NULL,
    context_before text NOT NULL,
    context_after text NOT NULL,
    PRIMARY KEY (entry_rowid, ordinal)
  );
  CREATE INDEX IF NOT EXISTS markers_type ON moon.markers (type, entry_rowid);
  CREATE INDEX IF NOT EXISTS markers_session ON moon.markers (session_id);
  CREATE INDEX IF NOT EXISTS markers_ts ON moon.markers (ts);
  `,
  // Fact folds (FixPort.readFold): each namespace's facts version, changed by statement triggers on every write
  // that changes what listEvents returns for it — a fact written or removed, a session with facts there added or
  // dropped — and the fold a reader kept for one version, removed by the same triggers (it quotes the facts).
  // Namespaces are touched in order, so two writers never wait on each other's rows crosswise. Re-runnable, like
  // the migrations after 6 (a database whose migrations table was rolled back runs them again).
  `
  CREATE TABLE IF NOT EXISTS moon.fact_versions (namespace text PRIMARY KEY, version text NOT NULL);
  CREATE TABLE IF NOT EXISTS moon.fact_folds (namespace text PRIMARY KEY, version text NOT NULL, build text NOT NULL, body text NOT NULL);
  CREATE OR REPLACE FUNCTION moon.touch_fact_namespaces(namespaces text[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO moon.fact_versions AS v (namespace, version)
      SELECT n, md5(random()::text || clock_timestamp()::text) FROM (SELECT DISTINCT unnest(namespaces) AS n) d WHERE n IS NOT NULL ORDER BY n
    ON CONFLICT (namespace) DO UPDATE SET version = excluded.version;
    DELETE FROM moon.fact_folds WHERE namespace = ANY (namespaces);
  $$;
  CREATE OR REPLACE FUNCTION moon.fact_events_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM moon.touch_fact_namespaces(ARRAY(SELECT namespace FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM moon.touch_fact_namespaces(ARRAY(SELECT namespace FROM old_rows));
    ELSE
      PERFORM moon.touch_fact_namespaces(ARRAY(SELECT namespace FROM old_rows UNION SELECT namespace FROM new_rows));
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE OR REPLACE FUNCTION moon.fact_sessions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM moon.touch_fact_namespaces(ARRAY(SELECT f.namespace FROM moon.fix_events f WHERE f.session_id IN (SELECT id FROM new_rows)));
    ELSE
      PERFORM moon.touch_fact_namespaces(ARRAY(SELECT f.namespace FROM moon.fix_events f WHERE f.session_id IN (SELECT id FROM old_rows)));
    END IF;
    RETURN NULL;
  END
  $$;
  ${replaceStatementTrigger('fact_events_insert', 'INSERT', 'moon.fix_events', 'moon.fact_events_changed')}
  ${replaceStatementTrigger('fact_events_delete', 'DELETE', 'moon.fix_events', 'moon.fact_events_changed')}
  ${replaceStatementTrigger('fact_events_update', 'UPDATE', 'moon.fix_events', 'moon.fact_events_changed')}
  ${replaceStatementTrigger('fact_sessions_insert', 'INSERT', 'moon.sessions', 'moon.fact_sessions_changed')}
  ${replaceStatementTrigger('fact_sessions_delete', 'DELETE', 'moon.sessions', 'moon.fact_sessions_changed')}
  `,
  // Postings of moon's own for pruned top-k (postgres/postings.ts; the same tables as SQLite's, docs/formats.md).
  // Entries indexed before are given theirs by fillPostings (engine.ts), which resumes where it stopped; until it is
  // done, word lists are ranked with tsvector alone. Re-runnable.
  `
  CREATE TABLE IF NOT EXISTS moon.posting_terms (id bigserial PRIMARY KEY, term text NOT NULL UNIQUE);
  CREATE TABLE IF NOT EXISTS moon.postings (
    term_id bigint NOT NULL,
    first_rowid bigint NOT NULL,
    last_rowid bigint NOT NULL,
    n integer NOT NULL,
    n_own integer NOT NULL,
    max_all integer NOT NULL,
    max_own integer NOT NULL,
    min_len integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (term_id, first_rowid)
  );
  CREATE TABLE IF NOT EXISTS moon.entry_terms (rowid bigint PRIMARY KEY, terms bytea NOT NULL);
  INSERT INTO moon.meta (key, value) SELECT 'postings_pending', '1'
    WHERE EXISTS (SELECT 1 FROM moon.entries) AND NOT EXISTS (SELECT 1 FROM moon.entry_terms)
    ON CONFLICT (key) DO NOTHING;
  `,
  // 20: entries with postings counted beside the entries (moon.corpus.term_rows, kept by statement triggers on
  // entry_terms), so a reader sees at once when they differ: a moon from before postings wrote or deleted entries
  // here (postings.ts hasAllPostings; fill-postings.ts mends it at the next write).
  `
  ALTER TABLE moon.corpus ADD COLUMN IF NOT EXISTS term_rows bigint NOT NULL DEFAULT 0;
  UPDATE moon.corpus SET term_rows = (SELECT count(*) FROM moon.entry_terms);
  CREATE OR REPLACE FUNCTION moon.count_entry_terms() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      UPDATE moon.corpus SET term_rows = term_rows + (SELECT count(*) FROM new_rows);
    ELSE
      UPDATE moon.corpus SET term_rows = term_rows - (SELECT count(*) FROM old_rows);
    END IF;
    RETURN NULL;
  END
  $$;
  DROP TRIGGER IF EXISTS entry_terms_insert ON moon.entry_terms;
  CREATE TRIGGER entry_terms_insert AFTER INSERT ON moon.entry_terms REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_entry_terms();
  DROP TRIGGER IF EXISTS entry_terms_delete ON moon.entry_terms;
  CREATE TRIGGER entry_terms_delete AFTER DELETE ON moon.entry_terms REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION moon.count_entry_terms();
  `,
  // 21: the fields a session is summarised by (src/fields/, postgres/session-fields.ts): lengths and texts per
  // session, and each field's terms; both go with their session.
  `
  CREATE TABLE IF NOT EXISTS moon.session_fields (
    session_id text PRIMARY KEY REFERENCES moon.sessions (id) ON DELETE CASCADE,
    version integer NOT NULL,
    texts jsonb NOT NULL,
    len_title integer NOT NULL,
    len_summary integer NOT NULL,
    len_digest integer NOT NULL,
    len_files integer NOT NULL,
    len_errors integer NOT NULL
  );
  CREATE TABLE IF NOT EXISTS moon.session_field_terms (
    term text NOT NULL,
    session_id text NOT NULL REFERENCES moon.sessions (id) ON DELETE CASCADE,
    field smallint NOT NULL,
    tf integer NOT NULL,
    PRIMARY KEY (term, session_id, field)
  );
  CREATE INDEX IF NOT EXISTS session_field_terms_session ON moon.session_field_terms (session_id);
  `,
];

/** How many migrations this build knows (`moon doctor` compares a database's count with it). */
export const POSTGRES_MIGRATIONS = MIGRATIONS.length;

/** A fixed key for pg_advisory_xact_lock: migrations of one database run one at a time. */
const MIGRATION_LOCK = 0x6d6f6f6e01;

/**
 * Brings the database to the newest migration. Creating the schema and the migrations table is under the same
 * lock as the steps: two `CREATE … IF NOT EXISTS` at once race on PostgreSQL's catalogue, and the loser fails
 * with a duplicate key instead of finding the object there. A database that is already current takes no lock.
 */
export async function migratePostgres(client: PgClient): Promise<void> {
  if ((await appliedCount(client)) >= MIGRATIONS.length) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS moon');
    await client.query('CREATE TABLE IF NOT EXISTS moon.migrations (version integer PRIMARY KEY, applied_ms bigint NOT NULL)');
    for (let index = await appliedCount(client); index < MIGRATIONS.length; index += 1) {
      await client.query(MIGRATIONS[index]!);
      await client.query('INSERT INTO moon.migrations (version, applied_ms) VALUES ($1, $2)', [index + 1, Date.now()]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** How many migrations the database has; 0 before the migrations table exists. */
export async function appliedCount(client: PgClient): Promise<number> {
  const exists = await client.query<{ ok: boolean }>("SELECT to_regclass('moon.migrations') IS NOT NULL AS ok");
  if (!exists.rows[0]?.ok) return 0;
  const result = await client.query<{ n: string | null }>('SELECT max(version) AS n FROM moon.migrations');
  return Number(result.rows[0]?.n ?? 0);
}
