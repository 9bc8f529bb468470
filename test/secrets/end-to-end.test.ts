import { appendFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CliRun, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { claudeSession, type TurnSpec } from '../helpers/transcripts.js';
import { buildKeptCases, buildSecretCases, type SecretCase } from './cases.js';
import { codexSession, openclawSession, type PlantedTurn } from './transcripts.js';

/**
 * Every kind of secret, planted in user text, a tool command and a tool result of a Claude Code, a Codex and an
 * OpenClaw transcript — and in the session fields (cwd, branch, tool name, title, subagent task) — is indexed by
 * the real CLI in one run. No generated secret body may then appear in any file moon wrote outside the raw
 * archive (database and WAL, projections, ledger), in any output of index / recall / sessions / show, or in the
 * index's searchable tables; look-alikes (SHAs, UUIDs, digests, identifiers) must stay findable.
 */

const SECRETS = buildSecretCases();
const KEPT = buildKeptCases();
const START = Date.parse('2026-03-02T09:00:00Z');
const FORMATS = ['claude-code', 'codex', 'openclaw'] as const;

/** Field secrets: one distinctive token per field, so a leak names the field. */
const byName = (name: string): SecretCase => {
  const found = SECRETS.find((item) => item.name === name);
  if (!found) throw new Error(`no case ${name}`);
  return found;
};
const FIELD = {
  cwd: byName('github classic'),
  branch: byName('gitlab personal'),
  tool: byName('npm'),
  title: byName('sendgrid'),
  task: byName('stripe live'),
  path: byName('digitalocean'),
};

let root: string;
let home: string;
let cleanup: () => void;
const outputs: { label: string; run: CliRun }[] = [];

function planted(secret: SecretCase, index: number): PlantedTurn {
  return {
    user: `case ${index} planted ${secret.text} here, please check the ${secret.name} setup`,
    command: `echo planted ${secret.text} here --case ${index}`,
    result: `planted output ${secret.text} here\nexit status fine`,
  };
}

function keptTurn(kept: { text: string }, index: number): PlantedTurn {
  return { user: `keeper ${index}: ${kept.text}`, command: `echo keeper ${kept.text}`, result: `keeper output ${kept.text}` };
}

function claudeTurns(turns: PlantedTurn[], toolName = 'Bash'): TurnSpec[] {
  return turns.flatMap((turn, index): TurnSpec[] => [
    { role: 'user', text: turn.user, at: new Date(START + index * 60_000).toISOString() },
    {
      role: 'assistant',
      at: new Date(START + index * 60_000 + 30_000).toISOString(),
      tool: { name: turn.toolName ?? toolName, input: { command: turn.command }, result: turn.result },
    },
  ]);
}

function writeCorpus(corpus: string): void {
  const turns = [...SECRETS.map(planted), ...KEPT.map(keptTurn)];
  const fieldTurn: PlantedTurn = {
    user: 'fields session: planted nothing here, only in the session facts',
    command: 'echo fields planted',
    result: 'fields output planted',
    toolName: `mcp__vault__${FIELD.tool.text}`,
  };
  for (const format of FORMATS) mkdirSync(join(corpus, format), { recursive: true });

  writeFileSync(join(corpus, 'claude-code', 'main.jsonl'), claudeSession({ sessionId: 'cc-main', turns: claudeTurns(turns) }));
  const fields = claudeSession({
    sessionId: 'cc-fields',
    cwd: `/home/dev/${FIELD.cwd.text}`,
    branch: `fix/${FIELD.branch.text}`,
    turns: claudeTurns([fieldTurn]),
  });
  writeFileSync(join(corpus, 'claude-code', 'fields.jsonl'), `${fields}${JSON.stringify({ type: 'custom-title', customTitle: `rotate ${FIELD.title.text}`, sessionId: 'cc-fields' })}\n`);
  const subagents = join(corpus, 'claude-code', 'cc-main', 'subagents');
  mkdirSync(subagents, { recursive: true });
  writeFileSync(join(subagents, 'agent-a1.jsonl'), claudeSession({ sessionId: 'cc-main', turns: claudeTurns([fieldTurn].map((turn) => ({ ...turn, toolName: 'Bash' }))) }));
  writeFileSync(join(subagents, 'agent-a1.meta.json'), JSON.stringify({ agentType: 'general-purpose', description: `deploy with ${FIELD.task.text}` }));

  writeFileSync(join(corpus, 'codex', 'main.jsonl'), codexSession({ id: '019c0000-0000-7000-8000-00000000c0de', cwd: '/work/app', start: START }, turns));
  writeFileSync(
    join(corpus, 'codex', 'fields.jsonl'),
    codexSession({ id: '019c0000-0000-7000-8000-00000000f1e1', cwd: `/home/dev/${FIELD.cwd.text}`, branch: `fix/${FIELD.branch.text}`, start: START }, [fieldTurn]),
  );
  writeFileSync(join(corpus, 'openclaw', 'main.jsonl'), openclawSession({ id: 'oc-main', cwd: '/work/app', start: START }, turns));
  // A folder named after a cwd that held a token (Claude Code names project folders so), with a file moon cannot
  // read as a transcript: its path reaches the report's errors and warnings.
  const odd = join(corpus, `-home-dev-${FIELD.path.text}`);
  mkdirSync(odd, { recursive: true });
  writeFileSync(join(odd, 'notes.jsonl'), '{"hello": "not a transcript"}\n');
  writeFileSync(join(corpus, 'openclaw', 'fields.jsonl'), openclawSession({ id: 'oc-fields', cwd: `/home/dev/${FIELD.cwd.text}`, start: START }, [fieldTurn]));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

async function moon(label: string, args: string[]): Promise<CliRun> {
  const run = await spawnMoon(args, { MOON_HOME: home });
  outputs.push({ label, run });
  return run;
}

beforeAll(async () => {
  const temp = makeTempDir('moon-secrets-');
  if (process.env.MOON_KEEP_TEST_HOME) console.log(temp.path);
  root = temp.path;
  cleanup = temp.cleanup;
  home = join(root, 'home');
  const corpus = join(root, 'corpus');
  writeCorpus(corpus);

  const indexed = await moon('index', ['index', corpus, '--json', '--no-embed']);
  expect(JSON.parse(indexed.stdout).failed, indexed.stderr).toBe(1);
  // A growing file is read from its committed offset with the stored carry: the appended part is redacted too.
  const later = byName('xai');
  appendFileSync(
    join(corpus, 'codex', 'fields.jsonl'),
    codexSession({ id: '019c0000-0000-7000-8000-00000000f1e1', cwd: '/ignored', start: START + 3_600_000 }, [planted(later, 999)])
      .split('\n')
      .slice(1)
      .join('\n'),
  );
  const resumed = await moon('index resumed', ['index', corpus, '--json', '--no-embed']);
  expect(JSON.parse(resumed.stdout).resumed, resumed.stderr).toBe(1);
  await moon('index text', ['index', corpus, '--force', '--no-embed']);
  await moon('recall json', ['recall', 'planted', '--group', 'message', '--limit', '2000', '--json']);
  await moon('recall text', ['recall', 'planted', '--group', 'message', '--limit', '2000']);
  await moon('recall sessions', ['recall', 'planted', 'fields', '--per-session', '50', '--json']);
  await moon('sessions', ['sessions', '--json']);
  await moon('sessions text', ['sessions']);
  for (const session of ['cc-fields', 'oc-fields', '019c0000-0000-7000-8000-00000000f1e1']) {
    await moon(`show ${session}`, ['show', session, '--json']);
  }
  const batch = join(root, 'kept.jsonl');
  writeFileSync(batch, KEPT.map((kept) => JSON.stringify({ query: kept.find, limit: 20, group: 'message' })).join('\n'));
  await moon('recall kept', ['recall', '--batch', batch]);

  // Fold the WAL into the database file so its bytes hold every committed page.
  const db = new Database(join(home, 'moon.db'));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}, 240_000);

afterAll(() => {
  if (!process.env.MOON_KEEP_TEST_HOME) cleanup?.();
});

/** Each secret body, and its first 16 characters (a partial leak is a leak). */
function needles(): { name: string; needle: string }[] {
  return SECRETS.flatMap((secret) =>
    secret.bodies.flatMap((body) => [body, body.slice(0, 16)].filter((needle) => needle.length >= 12).map((needle) => ({ name: secret.name, needle }))),
  );
}

describe('secrets never leave the raw archive', () => {
  test(`${SECRETS.length} kinds are planted, at least 40`, () => {
    expect(SECRETS.length).toBeGreaterThanOrEqual(40);
  });

  test('every stored file outside archives/raw is free of secret bodies (database + WAL, projections, ledger)', () => {
    const files = filesUnder(home).filter((path) => !relative(home, path).startsWith(join('archives', 'raw')));
    expect(files.some((path) => path.endsWith('moon.db'))).toBe(true);
    expect(files.filter((path) => path.endsWith('.md')).length).toBeGreaterThanOrEqual(6);
    const leaks: string[] = [];
    for (const path of files) {
      const bytes = readFileSync(path).toString('latin1');
      for (const { name, needle } of needles()) {
        if (bytes.includes(needle)) leaks.push(`${name} (${needle.slice(0, 16)}) in ${relative(home, path)}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  test('every output of index, recall, sessions and show is free of secret bodies', () => {
    expect(outputs.length).toBeGreaterThan(5);
    const leaks: string[] = [];
    for (const { label, run } of outputs) {
      for (const { name, needle } of needles()) {
        if (run.stdout.includes(needle) || run.stderr.includes(needle)) leaks.push(`${name} in ${label}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  test('a file path holding a token is redacted in the report', () => {
    const report = JSON.parse(outputs.find((output) => output.label === 'index')?.run.stdout ?? '{}') as { errors: { path: string }[] };
    expect(report.errors.map((error) => error.path)).toEqual([expect.stringContaining('-home-dev-[REDACTED:digitalocean-token]/notes.jsonl')]);
  });

  test('recall shows the planted places with markers, in every format', () => {
    const recall = outputs.find((output) => output.label === 'recall json')?.run;
    expect(recall?.code).toBe(0);
    const result = JSON.parse(recall?.stdout ?? '{}') as { matches: { snippet: string; metadata: { source: string } }[] };
    for (const format of FORMATS) {
      const snippets = result.matches.filter((match) => match.metadata.source === format).map((match) => match.snippet);
      expect(snippets.filter((snippet) => snippet.includes('[REDACTED:')).length, format).toBeGreaterThanOrEqual(SECRETS.length);
    }
  });

  test('each kind is replaced by its own marker in the index', () => {
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    try {
      const text = (db.prepare('SELECT text || char(10) || coalesce(result, \'\') FROM entries').pluck().all() as string[]).join('\n');
      const missing = SECRETS.filter((secret) => secret.kind && !text.includes(`[REDACTED:${secret.kind}]`)).map((secret) => secret.name);
      expect(missing).toEqual([]);
    } finally {
      db.close();
    }
  });

  test('no secret body is a searchable term of the word or trigram index', () => {
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    try {
      const found: string[] = [];
      for (const { name, needle } of needles()) {
        const phrase = `"${needle.replace(/"/g, '""')}"`;
        for (const table of ['entries_fts', 'entries_tri']) {
          const count = db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck().get(phrase) as number;
          if (count > 0) found.push(`${name} (${needle.slice(0, 16)}) in ${table}`);
        }
      }
      expect(found).toEqual([]);
    } finally {
      db.close();
    }
  });

  test('session fields (cwd, branch, tool name, title, subagent task) are redacted', () => {
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    try {
      const sessions = db.prepare('SELECT id, project, cwd, branch, title, agent_description FROM sessions').all() as Record<string, string | null>[];
      const fields = sessions.find((session) => session.id === 'cc-fields');
      expect(fields?.cwd).toBe('/home/dev/[REDACTED:github-token]');
      expect(fields?.branch).toBe('fix/[REDACTED:gitlab-token]');
      expect(fields?.title).toBe('rotate [REDACTED:sendgrid-key]');
      expect(sessions.find((session) => session.id === '019c0000-0000-7000-8000-00000000f1e1')?.branch).toBe('fix/[REDACTED:gitlab-token]');
      expect(sessions.some((session) => session.agent_description === 'deploy with [REDACTED:stripe-key]')).toBe(true);
      const appended = db.prepare("SELECT text FROM entries WHERE session_id = ? AND role = 'user'").pluck().all('019c0000-0000-7000-8000-00000000f1e1');
      expect(appended.some((text) => String(text).includes('[REDACTED:xai-key]'))).toBe(true);
      const tools = db.prepare("SELECT DISTINCT tool_name FROM entries WHERE tool_name LIKE 'mcp__vault__%'").pluck().all();
      expect(tools).toEqual(['mcp__vault__[REDACTED:npm-token]']);
    } finally {
      db.close();
    }
  });

  test('the raw archive keeps the verbatim transcript (owner-only)', () => {
    const raw = filesUnder(join(home, 'archives', 'raw')).map((path) => readFileSync(path, 'utf8')).join('\n');
    const first = SECRETS[0]?.bodies[0] ?? '';
    expect(raw).toContain(first);
  });
});

describe('look-alikes stay and are found by recall', () => {
  test('SHAs, UUIDs, digests, identifiers, versions and ordinary prose are stored as written', () => {
    const db = new Database(join(home, 'moon.db'), { readonly: true });
    try {
      const text = (db.prepare('SELECT text FROM entries').pluck().all() as string[]).join('\n');
      for (const kept of KEPT) expect(text, kept.text).toContain(kept.text);
    } finally {
      db.close();
    }
  });

  test('recall finds each look-alike', () => {
    const run = outputs.find((output) => output.label === 'recall kept')?.run;
    expect(run?.code, run?.stderr).toBe(0);
    const results = (run?.stdout.trim().split('\n') ?? []).map((line) => JSON.parse(line) as { query: string; matches: { snippet: string }[] });
    expect(results).toHaveLength(KEPT.length);
    results.forEach((result, index) => {
      const find = KEPT[index]?.find ?? '';
      expect(result.matches.some((match) => match.snippet.includes(find)), `recall ${find}`).toBe(true);
    });
  });
});
