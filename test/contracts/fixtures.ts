import { createEntry, createSession, type ArchiveRecord, type Entry, type EntryKind, type Priority, type Role, type SourceName } from '../../src/model.js';
import type { StoreEngine } from '../../src/store/ports.js';
import type { FileCommit, FileState, LexicalQuery, SearchFilters, StoredSession, TimeSearch } from '../../src/store/types.js';

/**
 * One shared corpus for the contract suites: five sessions over seven days (2026-03-02 … 2026-03-08, UTC), two
 * projects (shop, blog), two sources (claude-code, codex), user and assistant turns, reasoning, and tool calls
 * with targets, results and outcomes. Entry ids are `<session>.<n>` (n from 1, in session order), keys `k<n>`,
 * seq n*1000, line n — so a test names exactly the entries it expects.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** 2026-03-<day> at hh:mm:ss UTC, in epoch ms. */
export function at(day: number, hours: number, minutes = 0, seconds = 0): number {
  return Date.UTC(2026, 2, day, hours, minutes, seconds);
}

export interface SessionSpec {
  id: string;
  source: SourceName;
  project: string | null;
  cwd: string | null;
  branch?: string | null;
  startMs: number | null;
  endMs: number | null;
  title?: string | null;
}

export function storedSession(spec: SessionSpec, overrides: Partial<StoredSession> = {}): StoredSession {
  const base = createSession({
    id: spec.id,
    source: spec.source,
    path: transcriptPath(spec.id, spec.source),
    project: spec.project,
    cwd: spec.cwd,
    branch: spec.branch ?? null,
    parentSessionId: null,
    startMs: spec.startMs,
    endMs: spec.endMs,
    title: spec.title ?? null,
  });
  return {
    ...base,
    entryCount: 0,
    filteredNoiseCount: 0,
    skipped: {},
    archivePath: `/home/dev/.moon/archives/raw/${spec.id}.jsonl`,
    projectionPath: null,
    contentHash: `sha256:${spec.id}`,
    projectionStale: true,
    ...overrides,
  };
}

export function transcriptPath(sessionId: string, source: SourceName = 'claude-code'): string {
  return source === 'codex' ? `/home/dev/.codex/sessions/2026/03/${sessionId}.jsonl` : `/home/dev/.claude/projects/${sessionId}.jsonl`;
}

export interface TurnSpec {
  ts: number | null;
  role: Role;
  text: string;
  tool?: string;
  target?: string;
  result?: string;
  exitCode?: number;
  durationMs?: number;
  status?: string;
  priority?: Priority;
  kind?: EntryKind;
}

/** Entry n (1-based) of a session: id `<session>.<n>`, key `k<n>`, seq n*1000, line n. */
export function turn(sessionId: string, n: number, spec: TurnSpec): Entry {
  return createEntry({
    id: `${sessionId}.${n}`,
    key: `k${n}`,
    sessionId,
    seq: n * 1000,
    line: n,
    ts: spec.ts,
    role: spec.role,
    text: spec.text,
    toolName: spec.tool ?? null,
    toolTarget: spec.target ?? null,
    result: spec.result ?? null,
    resultId: spec.result === undefined ? null : `result-${sessionId}-${n}`,
    priority: spec.priority ?? (spec.tool ? 'normal' : null),
    kind: spec.kind ?? null,
    exitCode: spec.exitCode ?? null,
    durationMs: spec.durationMs ?? null,
    status: spec.status ?? null,
  });
}

export function fileState(session: Pick<StoredSession, 'id' | 'source' | 'path'>, overrides: Partial<FileState> = {}): FileState {
  return {
    path: session.path,
    sessionId: session.id,
    source: session.source,
    size: 4096,
    mtimeMs: at(9, 0),
    prefixHash: `prefix:${session.id}`,
    contentHash: `content:${session.id}`,
    offset: 4096,
    line: 40,
    carry: null,
    excluded: null,
    indexedAtMs: at(9, 0, 1),
    ...overrides,
  };
}

export interface CommitOptions {
  reset?: boolean;
  results?: FileCommit['results'];
  anchors?: FileCommit['anchors'];
  usage?: FileCommit['usage'];
  archived?: ArchiveRecord | null;
  file?: Partial<FileState>;
  forgetFile?: string | null;
}

/** One file's commit of `entries` for `session` (a full commit with reset unless told otherwise). */
export function fileCommit(session: StoredSession, entries: Entry[], options: CommitOptions = {}): FileCommit {
  return {
    file: fileState(session, options.file),
    session,
    reset: options.reset ?? true,
    entries,
    results: options.results ?? [],
    anchors: options.anchors ?? [],
    usage: options.usage ?? [],
    archived: options.archived ?? null,
    forgetFile: options.forgetFile ?? null,
  };
}

export function archiveRecord(sessionId: string, contentHash: string): ArchiveRecord {
  return {
    session_id: sessionId,
    archive_path: `/home/dev/.moon/archives/raw/${sessionId}.jsonl`,
    content_hash: contentHash,
    created_at_epoch_secs: Math.floor(at(9, 0) / 1000),
    indexed_collection: 'moon',
    projection_filtered_noise_count: 0,
  };
}

export interface SessionFixture {
  session: StoredSession;
  entries: Entry[];
}

function fixture(spec: SessionSpec, turns: TurnSpec[]): SessionFixture {
  return { session: storedSession(spec), entries: turns.map((item, index) => turn(spec.id, index + 1, item)) };
}

export const SHOP_CWD = '/home/dev/shop';
export const BLOG_CWD = '/home/dev/blog';

/** Mon 2 March, 09:00–09:10: a checkout outage after a secret rotation (claude-code, shop). */
export const CHECKOUT = fixture(
  { id: 'shop-checkout', source: 'claude-code', project: 'shop', cwd: SHOP_CWD, branch: 'main', startMs: at(2, 9), endMs: at(2, 9, 10) },
  [
    { ts: at(2, 9, 0), role: 'user', text: 'The checkout page fails after we deployed the payment service. Can you look at the logs?' },
    { ts: at(2, 9, 0, 30), role: 'assistant', text: "I'll check the deployment logs for the payment service first." },
    {
      ts: at(2, 9, 1),
      role: 'tool',
      tool: 'Bash',
      target: 'kubectl logs deploy/payment-service --tail=50',
      text: 'kubectl logs deploy/payment-service --tail=50',
      result: 'Error: connection refused to postgres at 10.0.0.5:5432\nretrying in 5s',
      exitCode: 1,
      durationMs: 2300,
      priority: 'high',
    },
    { ts: at(2, 9, 2), role: 'assistant', kind: 'reasoning', text: 'The payment service cannot reach the database; the DATABASE_URL secret probably changed.' },
    {
      ts: at(2, 9, 3),
      role: 'tool',
      tool: 'Read',
      target: 'src/payments/config.ts',
      text: 'src/payments/config.ts',
      result: 'export const databaseUrl = process.env.DATABASE_URL;',
    },
    {
      ts: at(2, 9, 5),
      role: 'assistant',
      text: 'The payment service reads DATABASE_URL from the environment, and the secret was rotated yesterday. I updated the secret and restarted the deployment.',
    },
    {
      ts: at(2, 9, 6),
      role: 'tool',
      tool: 'Bash',
      target: 'kubectl rollout restart deploy/payment-service',
      text: 'kubectl rollout restart deploy/payment-service',
      result: 'deployment.apps/payment-service restarted',
      exitCode: 0,
      priority: 'high',
    },
    { ts: at(2, 9, 10), role: 'user', text: 'Great, checkout works again. Thanks!' },
  ],
);

/** Tue 3 March 22:30 – Wed 4 March 01:30: a flaky test fixed with fake timers, across midnight (claude-code, shop). */
export const FLAKY = fixture(
  { id: 'shop-flaky-test', source: 'claude-code', project: 'shop', cwd: SHOP_CWD, branch: 'fix/cart-totals', startMs: at(3, 22, 30), endMs: at(4, 1, 30) },
  [
    { ts: at(3, 22, 30), role: 'user', text: 'The cart totals test is flaky in CI; it only fails around midnight.' },
    { ts: at(3, 22, 31), role: 'assistant', text: 'Let me run the cart totals suite to reproduce the failure.' },
    {
      ts: at(3, 22, 32),
      role: 'tool',
      tool: 'Bash',
      target: 'npm test -- cart-totals',
      text: 'npm test -- cart-totals',
      result: 'FAIL test/cart-totals.test.ts\n  expected 1999 to be 2000',
      exitCode: 1,
      priority: 'high',
    },
    {
      ts: at(3, 23, 40),
      role: 'assistant',
      text: "The test reads the wall clock. I'll freeze time with vi.useFakeTimers() and setSystemTime so the totals never cross midnight.",
    },
    {
      ts: at(3, 23, 45),
      role: 'tool',
      tool: 'Edit',
      target: 'test/cart-totals.test.ts',
      text: 'test/cart-totals.test.ts',
      result: "vi.useFakeTimers();\nvi.setSystemTime(new Date('2026-03-01T12:00:00Z'));",
      priority: 'high',
    },
    {
      ts: at(4, 0, 20),
      role: 'tool',
      tool: 'Bash',
      target: 'npm test -- cart-totals',
      text: 'npm test -- cart-totals',
      result: 'PASS test/cart-totals.test.ts (12 tests)',
      exitCode: 0,
      priority: 'high',
    },
    { ts: at(4, 1, 30), role: 'user', text: 'Nice, the flaky cart test is fixed.' },
  ],
);

/** Thu 5 March 14:00–14:40: an RSS feed broken by unicode titles (codex, blog). */
export const FEED = fixture(
  { id: 'blog-feed', source: 'codex', project: 'blog', cwd: BLOG_CWD, branch: 'feed-fix', startMs: at(5, 14), endMs: at(5, 14, 40), title: 'RSS feed and unicode titles' },
  [
    { ts: at(5, 14, 0), role: 'user', text: 'The RSS feed breaks on post titles with emoji and Japanese characters like 東京タワー.' },
    { ts: at(5, 14, 2), role: 'assistant', text: "I'll inspect the feed generator in scripts/build_feed.py." },
    {
      ts: at(5, 14, 5),
      role: 'tool',
      tool: 'exec_command',
      target: 'python scripts/build_feed.py --validate',
      text: 'python scripts/build_feed.py --validate',
      result: "UnicodeEncodeError: 'ascii' codec can't encode character '\\u6771' in position 12",
      exitCode: 1,
      status: 'failed',
    },
    { ts: at(5, 14, 20), role: 'assistant', text: "The feed writer opened the file without encoding='utf-8'. Fixed it: titles like 東京タワー and café render now." },
    { ts: at(5, 14, 30), role: 'user', text: 'Deploy the blog once the feed validates.' },
    {
      ts: at(5, 14, 40),
      role: 'tool',
      tool: 'exec_command',
      target: 'make deploy',
      text: 'make deploy',
      result: 'deployed blog to production (42 files)',
      exitCode: 0,
      status: 'completed',
      priority: 'high',
    },
  ],
);

/** Sat 7 March 07:00–07:20: hero images resized (claude-code, blog). */
export const IMAGES = fixture(
  { id: 'blog-images', source: 'claude-code', project: 'blog', cwd: BLOG_CWD, branch: 'main', startMs: at(7, 7), endMs: at(7, 7, 20) },
  [
    { ts: at(7, 7, 0), role: 'user', text: 'Resize the hero images near the top of the homepage; it is slow on mobile.' },
    {
      ts: at(7, 7, 5),
      role: 'tool',
      tool: 'Bash',
      target: 'npx sharp-cli resize 1600 public/img/hero-*.jpg',
      text: 'npx sharp-cli resize 1600 public/img/hero-*.jpg',
      result: 'resized 6 images',
      exitCode: 0,
      priority: 'high',
    },
    { ts: at(7, 7, 20), role: 'assistant', text: 'Resized the hero images to 1600px wide; the homepage now loads in half the time.' },
  ],
);

/** Sun 8 March 16:00–16:30: release 2.4.0 tagged and deployed to staging (codex, shop). */
export const RELEASE = fixture(
  { id: 'shop-release', source: 'codex', project: 'shop', cwd: SHOP_CWD, branch: 'main', startMs: at(8, 16), endMs: at(8, 16, 30) },
  [
    { ts: at(8, 16, 0), role: 'user', text: 'Prepare the 2.4 release of the shop and deploy it to staging.' },
    {
      ts: at(8, 16, 10),
      role: 'tool',
      tool: 'exec_command',
      target: 'git tag v2.4.0 && git push --tags',
      text: 'git tag v2.4.0 && git push --tags',
      result: ' * [new tag]         v2.4.0 -> v2.4.0',
      exitCode: 0,
      priority: 'high',
    },
    {
      ts: at(8, 16, 20),
      role: 'tool',
      tool: 'exec_command',
      target: './scripts/deploy.sh staging',
      text: './scripts/deploy.sh staging',
      result: 'deploying shop v2.4.0 to staging... done',
      exitCode: 0,
      priority: 'high',
    },
    { ts: at(8, 16, 30), role: 'assistant', text: 'Release 2.4.0 is tagged and deployed to staging.' },
  ],
);

/** In commit order (not time order: the flaky-test session is committed last, so rowid order ≠ time order). */
export const CORPUS: readonly SessionFixture[] = [CHECKOUT, FEED, IMAGES, RELEASE, FLAKY];

export function corpusCommits(): FileCommit[] {
  return CORPUS.map((item) => fileCommit(item.session, item.entries, { archived: archiveRecord(item.session.id, `sha256:${item.session.id}`) }));
}

/** Commit the whole corpus, one transaction. */
export async function commitCorpus(engine: StoreEngine): Promise<void> {
  await engine.ingest.transaction(async (tx) => {
    for (const change of corpusCommits()) await tx.commitFile(change);
  });
}

export function allEntries(): Entry[] {
  return CORPUS.flatMap((item) => item.entries);
}

export function sessionOf(entry: Pick<Entry, 'sessionId'>): StoredSession {
  const found = CORPUS.find((item) => item.session.id === entry.sessionId);
  if (!found) throw new Error(`no corpus session ${entry.sessionId}`);
  return found.session;
}

/** Entry ids in the order given. */
export function ids(items: readonly { entry: Entry }[]): string[] {
  return items.map((item) => item.entry.id);
}

/** Entry ids sorted (for lists whose order the contract leaves to the ranking). */
export function idSet(items: readonly { entry: Entry }[]): string[] {
  return ids(items).sort();
}

export function entryIds(fixtureItem: SessionFixture, ...numbers: number[]): string[] {
  return numbers.map((n) => `${fixtureItem.session.id}.${n}`);
}

export function lexical(any: string[], extra: Partial<Omit<LexicalQuery, 'any'>> = {}): LexicalQuery {
  return { any, all: [], none: [], filters: {}, limit: 100, ...extra };
}

export function timeQuery(filters: SearchFilters, extra: Partial<Omit<TimeSearch, 'filters'>> = {}): TimeSearch {
  return { filters, all: [], none: [], centerMs: null, limit: 100, ...extra };
}
