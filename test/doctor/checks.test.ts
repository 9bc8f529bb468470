import { describe, expect, test } from 'vitest';
import { type CheckResult, runChecks } from '../../src/doctor/checks.js';
import type { DoctorFacts, PathFacts } from '../../src/doctor/facts.js';
import type { AgentRegistration } from '../../src/install/inspect.js';
import type { PostgresHealth } from '../../src/store/types.js';

const dir = (path: string, mode = 0o700): PathFacts => ({ path, exists: true, isDirectory: true, mode, readable: true, writable: true });

const HOMES = { moon: '/home/u/.moon', default: '/home/u/.moon' };

const registered = (agent: AgentRegistration['agent']): AgentRegistration => ({
  agent,
  scope: 'user',
  installed: true,
  present: true,
  homes: HOMES,
  files: [{ file: `/home/u/.${agent}/config`, role: 'mcp', exists: true, entries: [{ label: 'mcpServers.moon', state: 'ok' }, { label: 'Stop hook', state: 'ok' }] }],
});

/** A machine where everything is right. */
function healthy(): DoctorFacts {
  return {
    platform: 'linux',
    nodeVersion: '22.12.0',
    moon: { nodePath: '/usr/bin/node', binPath: '/opt/moon/bin/moon.js', packageDir: '/opt/moon' },
    sqliteModules: { ok: true, detail: 'SQLite 3.50.0, sqlite-vec v0.1.9' },
    config: { ok: true, file: null },
    home: dir('/home/u/.moon', 0o755),
    private: [dir('/home/u/.moon/archives'), dir('/home/u/.moon/archives/raw'), { ...dir('/home/u/.moon/moon.db', 0o600), isDirectory: false }],
    sources: { configured: false, roots: [dir('/home/u/.claude/projects', 0o755)] },
    agents: [registered('claude-code'), registered('codex'), { agent: 'openclaw', scope: 'user', installed: false, present: false, homes: HOMES, files: [{ file: '/home/u/.openclaw/openclaw.json', role: 'mcp', exists: false, entries: [{ label: 'mcp.servers.moon', state: 'missing' }] }] }],
    watcher: { state: 'running', lock: '/home/u/.moon/logs/moon-watch.daemon.lock', pid: 4242, started_at_epoch_secs: 1, build_uuid: 'b', moon_home: '/home/u/.moon', legacy: false },
    engine: { kind: 'sqlite', location: '/home/u/.moon/moon.db', exists: true, probe: { ok: true, detail: '12 tables' } },
    hookServer: { mode: 'auto', socketFits: true, running: { pid: 5151, started_ms: Date.UTC(2026, 10, 29, 9) } },
    embedding: { meaning: { provider: 'none', model: null, dir: null, present: null, pull: null }, pulled: [], transformersInstalled: null, modelPathExists: null },
  };
}

function only(results: CheckResult[], id: string): CheckResult {
  const matching = results.filter((result) => result.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

describe('doctor checks (pure functions of the facts)', () => {
  test('a healthy machine: every check ok, OpenClaw skipped as not installed', () => {
    const results = runChecks(healthy());
    expect(results.filter((result) => result.status !== 'ok')).toEqual([{ id: 'agent:openclaw', status: 'skip', detail: 'OpenClaw: not found on this machine' }]);
    expect(results.map((result) => result.id)).toEqual(['node', 'sqlite', 'config', 'home', 'permissions', 'sources', 'agent:claude-code', 'agent:codex', 'agent:openclaw', 'watcher', 'hooks:server', 'embed', 'engine']);
  });

  test('Node older than 20.19 fails with the fix', () => {
    const facts = { ...healthy(), nodeVersion: '20.18.3' };
    expect(only(runChecks(facts), 'node')).toMatchObject({ status: 'fail', detail: 'Node.js 20.18.3 is older than 20.19.0' });
    expect(only(runChecks({ ...healthy(), nodeVersion: '20.19.0' }), 'node').status).toBe('ok');
    expect(only(runChecks({ ...healthy(), nodeVersion: '18.20.4' }), 'node').fix).toMatch(/^install Node\.js 20\.19\.0 or newer/);
  });

  test('a native module that does not load fails with `npm rebuild` in the package folder', () => {
    const facts = { ...healthy(), sqliteModules: { ok: false as const, error: 'The module was compiled against NODE_MODULE_VERSION 115.\nmore' } };
    expect(only(runChecks(facts), 'sqlite')).toEqual({
      id: 'sqlite',
      status: 'fail',
      detail: 'the SQLite modules do not load: The module was compiled against NODE_MODULE_VERSION 115.',
      fix: 'run `npm rebuild better-sqlite3 sqlite-vec` in /opt/moon (with the node that runs moon)',
    });
  });

  test('archives readable by others, an unwritable home', () => {
    const facts = healthy();
    facts.private[0] = dir('/home/u/.moon/archives', 0o755);
    facts.home = { ...facts.home, writable: false };
    const results = runChecks(facts);
    expect(only(results, 'permissions')).toMatchObject({ status: 'fail', detail: '/home/u/.moon/archives is 0755: other users can read your transcripts', fix: 'chmod -R go-rwx /home/u/.moon/archives' });
    expect(only(results, 'home')).toMatchObject({ status: 'fail', fix: 'chmod u+rwx /home/u/.moon (or chown it to this user)' });
  });

  test('a configured source root that is gone or unreadable', () => {
    const facts = { ...healthy(), sources: { configured: true, roots: [{ ...dir('/data/gone'), exists: false }, { ...dir('/data/locked'), readable: false }] } };
    const results = runChecks(facts).filter((result) => result.id === 'sources');
    expect(results.map((result) => [result.status, result.detail])).toEqual([
      ['fail', 'source root /data/gone does not exist'],
      ['fail', 'source root /data/locked cannot be read'],
    ]);
  });

  test('agents: a hook of another moon, entries missing after an install, an agent never wired, a malformed file', () => {
    const facts = healthy();
    facts.agents = [
      { ...registered('claude-code'), files: [{ file: '/home/u/.claude/settings.json', role: 'hooks', exists: true, entries: [{ label: 'Stop hook', state: 'elsewhere', found: '"/usr/bin/node" "/old/bin/moon.js" hook stop' }] }] },
      { ...registered('codex'), files: [{ file: '/home/u/.codex/hooks.json', role: 'hooks', exists: true, entries: [{ label: 'Stop hook', state: 'ok' }, { label: 'PreCompact hook', state: 'missing' }] }] },
      { ...registered('openclaw'), installed: false, files: [{ file: '/home/u/.openclaw/openclaw.json', role: 'mcp', exists: true, entries: [{ label: 'mcp.servers.moon', state: 'missing' }] }] },
      { ...registered('codex'), scope: 'project', files: [{ file: '/work/app/.codex/hooks.json', role: 'hooks', exists: true, error: '/work/app/.codex/hooks.json:3:5: not valid JSON (comma expected)', entries: [] }] },
    ];
    const results = runChecks(facts);
    expect(only(results, 'agent:claude-code')).toEqual({
      id: 'agent:claude-code',
      status: 'fail',
      detail: 'Claude Code: the Stop hook in /home/u/.claude/settings.json runs another moon ("/usr/bin/node" "/old/bin/moon.js" hook stop)',
      fix: 'run `moon install claude-code` to point it at this moon',
    });
    expect(only(results, 'agent:codex')).toMatchObject({ status: 'fail', detail: 'Codex: missing PreCompact hook (/home/u/.codex/hooks.json)', fix: 'run `moon install codex`' });
    expect(only(results, 'agent:openclaw')).toMatchObject({ status: 'warn', detail: 'OpenClaw is here but moon is not wired into it', fix: 'run `moon install openclaw`' });
    expect(only(results, 'agent:codex:project')).toMatchObject({ status: 'fail', detail: '/work/app/.codex/hooks.json:3:5: not valid JSON (comma expected)' });
  });

  test('agents: wiring on another moon home than doctor’s — named in the commands: a problem; named nowhere: a warning', () => {
    const facts = healthy();
    const other = { moon: '/srv/moon-b', default: '/home/u/.moon' };
    const entries = (home: string | null) => [{ label: 'Stop hook', state: 'ok' as const, home }, { label: 'mcpServers.moon', state: 'ok' as const, home }];
    facts.agents = [
      // Installed with MOON_HOME=/srv/moon-a, checked with MOON_HOME=/srv/moon-b.
      { ...registered('claude-code'), homes: other, files: [{ file: '/home/u/.claude/settings.json', role: 'hooks', exists: true, entries: entries('/srv/moon-a') }] },
      // Installed with the default home (no --home), checked with MOON_HOME=/srv/moon-b.
      { ...registered('codex'), homes: other, files: [{ file: '/home/u/.codex/hooks.json', role: 'hooks', exists: true, entries: entries(null) }] },
      // Installed with MOON_HOME=/srv/moon-a, checked with the default home.
      { ...registered('openclaw'), files: [{ file: '/home/u/.openclaw/openclaw.json', role: 'mcp', exists: true, entries: [{ label: 'mcp.servers.moon', state: 'ok', home: '/srv/moon a' }] }] },
      // A project's files name no home.
      { ...registered('claude-code'), scope: 'project', homes: other, files: [{ file: '/work/app/.mcp.json', role: 'mcp', exists: true, entries: [{ label: 'mcpServers.moon', state: 'ok', home: null }] }] },
    ];
    const results = runChecks(facts);
    expect(only(results, 'agent:claude-code')).toEqual({
      id: 'agent:claude-code',
      status: 'fail',
      detail: 'Claude Code: the Stop hook and mcpServers.moon use the moon home /srv/moon-a, not this one (/srv/moon-b)',
      fix: 'run `moon install claude-code --home /srv/moon-b` to wire it to this home (or `moon doctor --home /srv/moon-a` checks that home)',
    });
    expect(only(results, 'agent:codex')).toMatchObject({
      status: 'warn',
      detail: 'Codex: the Stop hook and mcpServers.moon name no moon home, so they use /home/u/.moon, not this one (/srv/moon-b), unless the agent starts with MOON_HOME set',
      fix: 'run `moon install codex --home /srv/moon-b` to name this home in the agent\'s commands (or `moon doctor --home /home/u/.moon` checks that home)',
    });
    expect(only(results, 'agent:openclaw')).toEqual({
      id: 'agent:openclaw',
      status: 'fail',
      detail: 'OpenClaw: the mcp.servers.moon uses the moon home /srv/moon a, not this one (/home/u/.moon)',
      fix: "run `moon install openclaw` to wire it to this home (or `moon doctor --home '/srv/moon a'` checks that home)",
    });
    expect(only(results, 'agent:claude-code:project')).toMatchObject({ status: 'warn', fix: expect.stringMatching(/^the project's files name no home: start the agent with MOON_HOME=\/srv\/moon-b in its environment/) });
    // The same wiring seen from its own home is fine.
    expect(only(runChecks({ ...facts, agents: [{ ...facts.agents[0]!, homes: { ...other, moon: '/srv/moon-a' } }] }), 'agent:claude-code').status).toBe('ok');
  });

  test('Codex hooks turned off in config.toml', () => {
    const facts = healthy();
    facts.agents = [{ ...registered('codex'), hooksDisabled: true }];
    expect(only(runChecks(facts), 'agent:codex')).toMatchObject({ status: 'warn', fix: 'remove `hooks = false` (or `codex_hooks = false`) from [features] in config.toml' });
  });

  test('watcher: not running and stale are warnings, an unreadable lock a problem, another home’s watcher a warning', () => {
    const base = healthy();
    const daemon = base.watcher as Extract<DoctorFacts['watcher'], { state: string }>;
    expect(only(runChecks({ ...base, watcher: { ...daemon, state: 'not running', pid: null } }), 'watcher')).toMatchObject({ status: 'warn', fix: 'run `moon service install`' });
    expect(only(runChecks({ ...base, platform: 'win32', watcher: { ...daemon, state: 'not running', pid: null } }), 'watcher').fix).toBe('run `moon watch --daemon` under your service manager');
    expect(only(runChecks({ ...base, watcher: { ...daemon, state: 'stale' } }), 'watcher')).toMatchObject({ status: 'warn', detail: `not running: ${daemon.lock} names pid 4242, which has exited` });
    expect(only(runChecks({ ...base, watcher: { ...daemon, state: 'unreadable' } }), 'watcher')).toMatchObject({ status: 'fail', fix: `make sure no watcher runs (\`ps aux | grep "moon.js watch"\`), then remove ${daemon.lock}` });
    expect(only(runChecks({ ...base, watcher: { ...daemon, moon_home: '/srv/other' } }), 'watcher')).toMatchObject({ status: 'warn', detail: 'the watcher (pid 4242) serves another home: /srv/other' });
  });

  test('hook server: running, not yet started, off, and a home too long for its socket', () => {
    const base = healthy();
    expect(only(runChecks(base), 'hooks:server')).toEqual({ id: 'hooks:server', status: 'ok', detail: 'running (pid 5151, since 2026-11-29T09:00:00.000Z)' });
    expect(only(runChecks({ ...base, hookServer: { ...base.hookServer!, running: null } }), 'hooks:server').detail).toMatch(/^not running: the next session-start/);
    expect(only(runChecks({ ...base, hookServer: { ...base.hookServer!, mode: 'off' } }), 'hooks:server').detail).toMatch(/^off \(hooks\.server\)/);
    expect(only(runChecks({ ...base, hookServer: { ...base.hookServer!, socketFits: false, running: null } }), 'hooks:server')).toMatchObject({
      status: 'warn',
      fix: 'use a shorter MOON_HOME (its run/hook.sock must fit in ~100 bytes)',
    });
    expect(only(runChecks({ ...base, hookServer: null }), 'hooks:server').status).toBe('skip');
  });

  test('engine: no index yet, a damaged file, an unreachable database (password masked)', () => {
    const base = healthy();
    expect(only(runChecks({ ...base, engine: { ...base.engine!, exists: false, probe: null } }), 'engine')).toMatchObject({ status: 'warn', fix: 'run `moon index`' });
    expect(only(runChecks({ ...base, engine: { ...base.engine!, probe: { ok: false, error: 'file is not a database', corrupt: true } } }), 'engine')).toMatchObject({
      status: 'fail',
      detail: '/home/u/.moon/moon.db does not open: file is not a database',
      fix: 'run `moon rebuild` (it rebuilds the index from the raw archive)',
    });
    const pg = only(runChecks({ ...base, engine: { kind: 'postgres', location: 'postgres://moon:hunter2@db:5432/moon', exists: true, probe: { ok: false, error: 'connect ECONNREFUSED' } } }), 'engine');
    expect(pg).toMatchObject({ status: 'fail', detail: 'PostgreSQL (postgres://moon:***@db:5432/moon) does not answer: connect ECONNREFUSED' });
    expect(JSON.stringify(pg)).not.toContain('hunter2');
  });

  test('a configuration that does not load is a problem; the checks that need it are skipped', () => {
    const facts = { ...healthy(), config: { ok: false as const, error: '/home/u/.moon/moon.toml: unknown key bogus', hint: 'see docs/cli.md#configuration' }, watcher: null, engine: null, hookServer: null };
    const results = runChecks(facts);
    expect(only(results, 'config')).toEqual({ id: 'config', status: 'fail', detail: '/home/u/.moon/moon.toml: unknown key bogus', fix: 'see docs/cli.md#configuration' });
    expect(only(results, 'watcher').status).toBe('skip');
    expect(only(results, 'engine').status).toBe('skip');
    expect(only(results, 'hooks:server').status).toBe('skip');
  });

  describe('PostgreSQL', () => {
    const health = (overrides: Partial<PostgresHealth> = {}): PostgresHealth => ({
      extensions: [
        { name: 'vector', installed: '0.8.0', available: '0.8.0', required: true },
        { name: 'pg_trgm', installed: '1.6', available: '1.6', required: true },
        { name: 'rum', installed: null, available: null, required: false },
      ],
      migrations: { applied: 12, known: 12 },
      indexes: [
        { name: 'entries_pkey', table: 'entries', valid: true, bytes: 1 << 20 },
        { name: 'entries_tv', table: 'entries', valid: true, bytes: 8 << 20 },
      ],
      tables: [
        { name: 'entries', rows: 69994, analyzed: true, bytes: 300 * 2 ** 20 },
        { name: 'fix_events', rows: 0, analyzed: false, bytes: 8192 },
      ],
      postings: { pending: false, entries: 0, filled: 0 },
      ...overrides,
    });
    const on = (value: PostgresHealth | null): DoctorFacts => ({
      ...healthy(),
      engine: { kind: 'postgres', location: 'postgres://moon:pw@db:5432/moon', exists: true, probe: { ok: true, detail: 'PostgreSQL 15.8', health: value } },
    });

    test('a healthy database: extensions, schema and indexes ok, rum said to be optional', () => {
      const results = runChecks(on(health()));
      expect(results.map((result) => result.id).slice(-5)).toEqual(['engine', 'pg:extensions', 'pg:schema', 'pg:indexes', 'pg:postings']);
      expect(only(results, 'pg:extensions')).toEqual({ id: 'pg:extensions', status: 'ok', detail: 'vector 0.8.0, pg_trgm 1.6, rum not on the server (optional)' });
      expect(only(results, 'pg:schema')).toEqual({ id: 'pg:schema', status: 'ok', detail: 'all 12 migrations applied' });
      expect(only(results, 'pg:indexes')).toEqual({ id: 'pg:indexes', status: 'ok', detail: '2 indexes valid; entries: 69,994 rows, 300.0 MiB with indexes' });
    });

    test('pgvector missing on the server fails with what to install; installable but not installed warns', () => {
      const gone = health({ extensions: [{ name: 'vector', installed: null, available: null, required: true }, { name: 'pg_trgm', installed: '1.6', available: '1.6', required: true }] });
      expect(only(runChecks(on(gone)), 'pg:extensions')).toMatchObject({ status: 'fail', detail: 'vector not on the server, pg_trgm 1.6', fix: expect.stringMatching(/^install vector on the PostgreSQL server/) });
      const installable = health({ extensions: [{ name: 'vector', installed: null, available: '0.8.0', required: true }, { name: 'rum', installed: '1.3', available: '1.3', required: false }] });
      expect(only(runChecks(on(installable)), 'pg:extensions')).toMatchObject({ status: 'warn', detail: 'vector 0.8.0 available, not installed, rum 1.3' });
    });

    test('a schema behind this build warns, one ahead of it fails, none yet warns', () => {
      expect(only(runChecks(on(health({ migrations: { applied: 10, known: 12 } }))), 'pg:schema')).toMatchObject({ status: 'warn', detail: '10 of 12 migrations applied' });
      expect(only(runChecks(on(health({ migrations: { applied: 13, known: 12 } }))), 'pg:schema')).toMatchObject({ status: 'fail', fix: expect.stringMatching(/^upgrade moon/) });
      expect(only(runChecks(on(health({ migrations: null }))), 'pg:schema').status).toBe('warn');
    });

    test('an invalid index fails with the REINDEX to run; a table with rows never analysed warns with the ANALYZE', () => {
      const broken = health({ indexes: [{ name: 'entries_tv', table: 'entries', valid: false, bytes: 0 }] });
      expect(only(runChecks(on(broken)), 'pg:indexes')).toEqual({
        id: 'pg:indexes',
        status: 'fail',
        detail: 'invalid (a failed or unfinished build; queries do not use them): moon.entries_tv on entries',
        fix: 'REINDEX INDEX CONCURRENTLY moon.entries_tv;',
      });
      const blind = health({ tables: [{ name: 'entries', rows: 500, analyzed: false, bytes: 2 ** 20 }] });
      expect(only(runChecks(on(blind)), 'pg:indexes')).toMatchObject({ status: 'warn', fix: 'ANALYZE moon.entries; (or let autovacuum run)' });
    });

    test('postings: ranked from them when every entry has them; a fill under way warns with how far it got', () => {
      expect(only(runChecks(on(health())), 'pg:postings')).toEqual({ id: 'pg:postings', status: 'ok', detail: 'word lists ranked from postings (pruned top-k)' });
      expect(only(runChecks(on(health({ postings: { pending: true, entries: 700_501, filled: 120_000 } }))), 'pg:postings')).toMatchObject({
        status: 'warn',
        detail: 'postings being filled (120,000 of 700,501 entries): word lists ranked by tsvector until then',
        fix: expect.stringMatching(/^run `moon index`/),
      });
      expect(only(runChecks(on(health({ postings: null }))), 'pg:postings').status).toBe('warn');
    });

    test('catalogs that could not be read warn; SQLite and a database that does not answer get no PostgreSQL lines', () => {
      expect(only(runChecks(on(null)), 'pg:health').status).toBe('warn');
      expect(runChecks(healthy()).some((result) => result.id.startsWith('pg:'))).toBe(false);
      const down: DoctorFacts = { ...healthy(), engine: { kind: 'postgres', location: 'postgres://db/moon', exists: true, probe: { ok: false, error: 'refused' } } };
      expect(runChecks(down).some((result) => result.id.startsWith('pg:'))).toBe(false);
    });
  });
});
