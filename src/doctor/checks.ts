import type { AgentRegistration, EntryState } from '../install/inspect.js';
import { agentTitle } from '../install/targets.js';
import type { PostgresHealth } from '../store/types.js';
import { type DoctorFacts, defaultRootsOf } from './facts.js';

/** ok: nothing to do; warn: works, but something is missing or odd; fail: a problem (`moon doctor` exits 1); skip: not applicable. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable id: `node`, `sqlite`, `agent:codex`, … */
  id: string;
  status: CheckStatus;
  /** What was found, in one line. */
  detail: string;
  /** The exact thing to do about it (warn and fail only). */
  fix?: string;
}

export type Check = (facts: DoctorFacts) => CheckResult[];

export const MIN_NODE = [20, 19, 0] as const;

/** Node.js 20.19 or newer (require(esm), the engines field of package.json). */
export const checkNode: Check = (facts) => {
  const [major = 0, minor = 0, patch = 0] = facts.nodeVersion.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10));
  const tooOld = major !== MIN_NODE[0] ? major < MIN_NODE[0] : minor !== MIN_NODE[1] ? minor < MIN_NODE[1] : patch < MIN_NODE[2];
  return [
    tooOld
      ? { id: 'node', status: 'fail', detail: `Node.js ${facts.nodeVersion} is older than ${MIN_NODE.join('.')}`, fix: `install Node.js ${MIN_NODE.join('.')} or newer and run moon with it, then \`moon install <agent>\` again so the agents use that node` }
      : { id: 'node', status: 'ok', detail: `Node.js ${facts.nodeVersion} (${facts.moon.nodePath})` },
  ];
};

/** better-sqlite3 and sqlite-vec load (a node upgrade without a rebuild breaks the native binding). */
export const checkSqliteModules: Check = (facts) => {
  const probe = facts.sqliteModules;
  if (probe.ok) return [{ id: 'sqlite', status: 'ok', detail: probe.detail }];
  const usesPostgres = facts.engine?.kind === 'postgres';
  return [
    {
      id: 'sqlite',
      status: usesPostgres ? 'warn' : 'fail',
      detail: `the SQLite modules do not load: ${firstLine(probe.error)}${usesPostgres ? ' (this home uses PostgreSQL; `moon rebuild` and a SQLite index need them)' : ''}`,
      fix: `run \`npm rebuild better-sqlite3 sqlite-vec\` in ${facts.moon.packageDir} (with the node that runs moon)`,
    },
  ];
};

export const checkConfig: Check = (facts) =>
  facts.config.ok
    ? [{ id: 'config', status: 'ok', detail: facts.config.file ? `loaded ${facts.config.file}` : 'defaults (no moon.toml)' }]
    : [{ id: 'config', status: 'fail', detail: facts.config.error, fix: facts.config.hint ?? 'fix the key it names (see docs/cli.md#configuration)' }];

/** MOON_HOME is a folder moon can write; archives and the index are readable by their owner only. */
export const checkHome: Check = (facts) => {
  const home = facts.home;
  const results: CheckResult[] = [];
  if (!home.exists) results.push({ id: 'home', status: 'warn', detail: `${home.path} does not exist yet`, fix: 'run `moon index` (it creates the home and indexes your transcripts)' });
  else if (!home.isDirectory) results.push({ id: 'home', status: 'fail', detail: `${home.path} is not a folder`, fix: 'point MOON_HOME (or --home) at a folder, or move the file away' });
  else if (!home.writable || !home.readable) {
    results.push({ id: 'home', status: 'fail', detail: `${home.path} is not ${home.readable ? 'writable' : 'readable'} by this user`, fix: `chmod u+rwx ${shellQuote(home.path)} (or chown it to this user)` });
  } else results.push({ id: 'home', status: 'ok', detail: `${home.path} is writable` });
  for (const item of facts.private) {
    if (item.mode === null) continue;
    const wanted = item.isDirectory ? 0o700 : 0o600;
    if ((item.mode & 0o077) !== 0) {
      results.push({
        id: 'permissions',
        status: 'fail',
        detail: `${item.path} is ${octal(item.mode)}: other users can read your transcripts`,
        fix: `chmod ${item.isDirectory ? '-R go-rwx' : octal(wanted)} ${shellQuote(item.path)}`,
      });
    }
  }
  if (facts.private.length > 0 && !results.some((result) => result.id === 'permissions')) {
    results.push({ id: 'permissions', status: 'ok', detail: 'archives and index are private to their owner' });
  }
  return results;
};

/** The transcript folders moon reads exist and can be read. */
export const checkSources: Check = (facts) => {
  const { configured, roots } = facts.sources;
  const results: CheckResult[] = [];
  for (const root of roots) {
    if (!root.exists) {
      results.push({ id: 'sources', status: 'fail', detail: `source root ${root.path} does not exist`, fix: `create it, or remove it from sources.roots (moon.toml) / MOON_SOURCES` });
    } else if (!root.readable) {
      results.push({ id: 'sources', status: 'fail', detail: `source root ${root.path} cannot be read`, fix: `chmod u+rx ${shellQuote(root.path)}, or run moon as the user who owns it` });
    }
  }
  if (roots.length === 0) {
    results.push({
      id: 'sources',
      status: 'warn',
      detail: `no transcripts found where Claude Code, Codex and OpenClaw keep them (${defaultRootsOf('~').join(', ')})`,
      fix: 'set sources.roots in moon.toml (or MOON_SOURCES) to the folders holding your transcripts',
    });
  } else if (results.length === 0) {
    results.push({ id: 'sources', status: 'ok', detail: `${configured ? 'configured' : 'found'}: ${roots.map((root) => root.path).join(', ')}` });
  }
  return results;
};

/** Each agent's hooks and MCP server are there and run this moon. */
export const checkAgents: Check = (facts) => facts.agents.map((registration) => judgeAgent(registration));

function judgeAgent(registration: AgentRegistration): CheckResult {
  const { agent, scope, homes } = registration;
  const id = `agent:${agent}${scope === 'project' ? ':project' : ''}`;
  // A project's files name no home; a user install names this one unless it is the default.
  const install = `moon install ${agent}${scope === 'project' ? ' --scope project' : homes.moon === homes.default ? '' : ` --home ${shellQuote(homes.moon)}`}`;
  const title = agentTitle(agent);
  const broken = registration.files.find((file) => file.error);
  if (broken) return { id, status: 'fail', detail: broken.error!, fix: `fix ${broken.file} at the line and column named, then run \`${install}\`` };
  const entries = registration.files.flatMap((file) => file.entries.map((entry) => ({ ...entry, file: file.file })));
  const elsewhere = entries.filter((entry) => entry.state === 'elsewhere');
  const missing = entries.filter((entry) => entry.state === 'missing');
  const ok = entries.filter((entry) => entry.state === 'ok');
  if (elsewhere.length > 0) {
    return {
      id,
      status: 'fail',
      detail: `${title}: ${elsewhere.map((entry) => `the ${entry.label} in ${entry.file} runs another moon (${entry.found})`).join('; ')}`,
      fix: `run \`${install}\` to point it at this moon`,
    };
  }
  const strays = ok.filter((entry) => (entry.home ?? homes.default) !== homes.moon);
  if (strays.length > 0) return judgeHomes(registration, strays, id, install);
  if (missing.length === 0) {
    if (registration.hooksDisabled) {
      return { id, status: 'warn', detail: `${title}: moon is wired in, but hooks are turned off in config.toml ([features])`, fix: 'remove `hooks = false` (or `codex_hooks = false`) from [features] in config.toml' };
    }
    return { id, status: 'ok', detail: `${title}: ${ok.map((entry) => entry.label).join(', ')} run this moon` };
  }
  const list = missing.map((entry) => `${entry.label} (${entry.file})`).join(', ');
  if (registration.installed || ok.length > 0) return { id, status: 'fail', detail: `${title}: missing ${list}`, fix: `run \`${install}\`` };
  if (registration.present) return { id, status: 'warn', detail: `${title} is here but moon is not wired into it`, fix: `run \`${install}\`` };
  return { id, status: 'skip', detail: `${title}: not found on this machine` };
}

/**
 * Entries that run this moon on another moon home than doctor's: a home they name is certain (fail); naming none,
 * they use ~/.moon unless the agent starts with MOON_HOME set, which doctor cannot see (warn).
 */
function judgeHomes(registration: AgentRegistration, strays: readonly EntryState[], id: string, install: string): CheckResult {
  const { homes, scope } = registration;
  const title = agentTitle(registration.agent);
  const groups = new Map<string, string[]>();
  for (const entry of strays) {
    const key = entry.home ?? '';
    groups.set(key, [...(groups.get(key) ?? []), entry.label]);
  }
  const list = (labels: string[]): string => `the ${labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)!}` : labels[0]!}`;
  const uses = [...groups].map(([home, labels]) => `${list(labels)} ${home === '' ? `name${labels.length === 1 ? 's' : ''} no moon home, so ${labels.length === 1 ? 'it uses' : 'they use'} ${homes.default}` : `use${labels.length === 1 ? 's' : ''} the moon home ${home}`}`);
  const named = strays.find((entry) => entry.home !== null && entry.home !== undefined)?.home ?? null;
  const detail = `${title}: ${uses.join('; ')}, not this one (${homes.moon})`;
  const other = named ?? homes.default;
  const elsewhere = `\`moon doctor --home ${shellQuote(other)}\` checks that home`;
  if (named !== null) return { id, status: 'fail', detail, fix: `run \`${install}\` to wire it to this home (or ${elsewhere})` };
  if (scope === 'project') {
    return { id, status: 'warn', detail: `${detail}, unless the agent starts with MOON_HOME set`, fix: `the project's files name no home: start the agent with MOON_HOME=${shellQuote(homes.moon)} in its environment (or ${elsewhere})` };
  }
  return { id, status: 'warn', detail: `${detail}, unless the agent starts with MOON_HOME set`, fix: `run \`${install}\` to name this home in the agent's commands (or ${elsewhere})` };
}

/** The watcher daemon: running, or at least no lock left in the way. */
export const checkWatcher: Check = (facts) => {
  const daemon = facts.watcher;
  if (daemon === null) return [{ id: 'watcher', status: 'skip', detail: 'not checked (the configuration did not load)' }];
  if ('error' in daemon) return [{ id: 'watcher', status: 'fail', detail: `cannot read the watcher's state: ${daemon.error}`, fix: 'check the permissions of $MOON_HOME/logs and $MOON_HOME/state' }];
  switch (daemon.state) {
    case 'running':
      if (daemon.moon_home && facts.home.path !== daemon.moon_home) {
        return [{ id: 'watcher', status: 'warn', detail: `the watcher (pid ${daemon.pid}) serves another home: ${daemon.moon_home}`, fix: `give each home its own logs folder (logs.dir), or run moon with MOON_HOME=${daemon.moon_home}` }];
      }
      return [{ id: 'watcher', status: 'ok', detail: `running (pid ${daemon.pid})` }];
    case 'stopping':
      return [{ id: 'watcher', status: 'warn', detail: `stopping (pid ${daemon.pid}): asked to stop, not exited yet`, fix: 'wait a few seconds; `moon watch --daemon` or `moon service install` starts it again' }];
    case 'stale':
      return [{ id: 'watcher', status: 'warn', detail: `not running: ${daemon.lock} names pid ${daemon.pid}, which has exited`, fix: 'run `moon service install` (or `moon watch --daemon`); it takes the stale lock over' }];
    case 'unreadable':
      return [{ id: 'watcher', status: 'fail', detail: `the lock ${daemon.lock} cannot be read`, fix: `make sure no watcher runs (\`ps aux | grep "moon.js watch"\`), then remove ${shellQuote(daemon.lock)}` }];
    default:
      return [
        {
          id: 'watcher',
          status: 'warn',
          detail: 'not running: transcripts are indexed only by the agents’ hooks and `moon index`',
          fix: facts.platform === 'linux' || facts.platform === 'darwin' ? 'run `moon service install`' : 'run `moon watch --daemon` under your service manager',
        },
      ];
  }
};

/** The index opens: the SQLite file, or the PostgreSQL database answers. */
export const checkEngine: Check = (facts) => {
  const engine = facts.engine;
  if (engine === null) return [{ id: 'engine', status: 'skip', detail: 'not checked (the configuration did not load)' }];
  if (engine.kind === 'sqlite' && !engine.exists) return [{ id: 'engine', status: 'warn', detail: `no index yet at ${engine.location}`, fix: 'run `moon index`' }];
  const probe = engine.probe!;
  const where = engine.kind === 'postgres' ? `PostgreSQL (${maskPassword(engine.location)})` : engine.location;
  if (probe.ok) return [{ id: 'engine', status: 'ok', detail: `${where} opens (${probe.detail})` }];
  if (engine.kind === 'postgres') {
    return [{ id: 'engine', status: 'fail', detail: `${where} does not answer: ${firstLine(probe.error)}`, fix: 'check store.url (MOON_DATABASE_URL), the password and that the server accepts connections from here' }];
  }
  return [
    {
      id: 'engine',
      status: 'fail',
      detail: `${where} does not open: ${firstLine(probe.error)}`,
      fix: probe.corrupt ? 'run `moon rebuild` (it rebuilds the index from the raw archive)' : `check the file's owner and permissions (chmod 600 ${shellQuote(engine.location)})`,
    },
  ];
};

/**
 * A PostgreSQL store that answers: the extensions moon needs and the optional ones, the schema against this build,
 * and its indexes and tables (an invalid index, a table the planner never analysed). Nothing for SQLite.
 */
export const checkPostgres: Check = (facts) => {
  const engine = facts.engine;
  if (engine?.kind !== 'postgres' || !engine.probe?.ok) return [];
  const health = engine.probe.health;
  if (!health) return [{ id: 'pg:health', status: 'warn', detail: 'the catalogs could not be read: extensions, schema and indexes not checked' }];
  return [describeExtensions(health), describeSchema(health), describeIndexes(health), describePostings(health)];
};

/** How the word lists are ranked: from postings (pruned top-k), or by tsvector while a migration fills them. */
function describePostings(health: PostgresHealth): CheckResult {
  const postings = health.postings;
  if (postings === null) return { id: 'pg:postings', status: 'warn', detail: 'no postings in this schema yet: word lists ranked by tsvector', fix: 'run `moon index` (it migrates the schema)' };
  if (!postings.pending) return { id: 'pg:postings', status: 'ok', detail: 'word lists ranked from postings (pruned top-k)' };
  const count = (value: number) => value.toLocaleString('en-US');
  return {
    id: 'pg:postings',
    status: 'warn',
    detail: `postings being filled (${count(postings.filled)} of ${count(postings.entries)} entries): word lists ranked by tsvector until then`,
    fix: 'run `moon index` (or let the watcher run): it resumes the fill where it stopped, a few sessions per transaction',
  };
}

function describeExtensions(health: PostgresHealth): CheckResult {
  const missing = health.extensions.filter((extension) => extension.required && extension.installed === null);
  const said = health.extensions.map((extension) => {
    if (extension.installed !== null) return `${extension.name} ${extension.installed}`;
    if (!extension.required) return `${extension.name} ${extension.available === null ? 'not on the server' : `${extension.available} available`} (optional)`;
    return `${extension.name} ${extension.available === null ? 'not on the server' : `${extension.available} available, not installed`}`;
  });
  const detail = said.join(', ');
  const unavailable = missing.filter((extension) => extension.available === null);
  if (unavailable.length > 0) {
    return { id: 'pg:extensions', status: 'fail', detail, fix: `install ${unavailable.map((extension) => extension.name).join(' and ')} on the PostgreSQL server (Debian: postgresql-15-pgvector, postgresql-contrib), then run \`moon index\`` };
  }
  if (missing.length > 0) {
    return { id: 'pg:extensions', status: 'warn', detail, fix: 'run `moon index`: its first write creates them (the role needs CREATE on the database, or a superuser runs CREATE EXTENSION once)' };
  }
  return { id: 'pg:extensions', status: 'ok', detail };
}

function describeSchema(health: PostgresHealth): CheckResult {
  const migrations = health.migrations;
  if (migrations === null) return { id: 'pg:schema', status: 'warn', detail: "moon's schema is not created in this database yet", fix: 'run `moon index` (its first write creates it)' };
  if (migrations.applied > migrations.known) {
    return { id: 'pg:schema', status: 'fail', detail: `migrated by a newer moon: ${migrations.applied} migrations, this one knows ${migrations.known}`, fix: 'upgrade moon on this machine to the version the other machines run' };
  }
  if (migrations.applied < migrations.known) {
    return { id: 'pg:schema', status: 'warn', detail: `${migrations.applied} of ${migrations.known} migrations applied`, fix: 'run `moon index`: it applies the rest (one transaction each, under a lock other machines wait on)' };
  }
  return { id: 'pg:schema', status: 'ok', detail: `all ${migrations.known} migrations applied` };
}

function describeIndexes(health: PostgresHealth): CheckResult {
  const invalid = health.indexes.filter((index) => !index.valid);
  if (invalid.length > 0) {
    return {
      id: 'pg:indexes',
      status: 'fail',
      detail: `invalid (a failed or unfinished build; queries do not use them): ${invalid.map((index) => `moon.${index.name} on ${index.table}`).join(', ')}`,
      fix: invalid.map((index) => `REINDEX INDEX CONCURRENTLY moon.${index.name};`).join(' '),
    };
  }
  const blind = health.tables.filter((table) => table.rows > 0 && !table.analyzed);
  const entries = health.tables.find((table) => table.name === 'entries');
  const size = entries ? `; entries: ${entries.rows.toLocaleString('en-US')} rows, ${formatBytes(entries.bytes)} with indexes` : '';
  const detail = `${health.indexes.length} indexes valid${size}`;
  if (blind.length > 0) {
    return {
      id: 'pg:indexes',
      status: 'warn',
      detail: `${detail}; never analysed (the planner guesses): ${blind.map((table) => `moon.${table.name}`).join(', ')}`,
      fix: `ANALYZE ${blind.map((table) => `moon.${table.name}`).join(', ')}; (or let autovacuum run)`,
    };
  }
  return { id: 'pg:indexes', status: 'ok', detail };
}

function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KiB`;
}

/** The hook server: who answers the hooks that hand the agent context (docs/cli.md, "The hook server"). */
export const checkHookServer: Check = (facts) => {
  const server = facts.hookServer;
  if (server === null) return [{ id: 'hooks:server', status: 'skip', detail: 'not checked (the configuration did not load)' }];
  if (server.mode === 'off') return [{ id: 'hooks:server', status: 'ok', detail: 'off (hooks.server): every hook runs in its own process' }];
  if (!server.socketFits) {
    return [
      {
        id: 'hooks:server',
        status: 'warn',
        detail: `no hook server for ${facts.home.path}: ${facts.platform === 'win32' ? 'not on Windows' : 'its path is too long for a socket'}; each hook loads moon in its own process (~150–300 ms more per session start)`,
        fix: facts.platform === 'win32' ? 'nothing to do' : 'use a shorter MOON_HOME (its run/hook.sock must fit in ~100 bytes)',
      },
    ];
  }
  return [
    server.running
      ? { id: 'hooks:server', status: 'ok', detail: `running (pid ${server.running.pid}, since ${new Date(server.running.started_ms).toISOString()})` }
      : { id: 'hooks:server', status: 'ok', detail: 'not running: the next session-start, user-prompt-submit or pre-compact hook starts it' },
  ];
};

/** What recall uses: words only, or words and meaning through an embedding provider — and whether its model is there. */
export const checkEmbedding: Check = (facts) => {
  const embedding = facts.embedding;
  if (embedding === null) return [{ id: 'embed', status: 'skip', detail: 'not checked (the configuration did not load)' }];
  const { meaning, pulled } = embedding;
  const inHome = pulled.length > 0 ? `models in the home: ${pulled.join(', ')}` : 'no model in the home';
  switch (meaning.provider) {
    case 'none':
      return [
        {
          id: 'embed',
          status: 'ok',
          detail: `recall uses words only (embed.provider = "none"); ${inHome}${pulled.length > 0 ? ' — set embed.provider = "transformers" and embed.model to recall by meaning too' : ''}`,
        },
      ];
    case 'transformers': {
      if (embedding.modelPathExists === false) {
        return [{ id: 'embed', status: 'fail', detail: `embed.model_path ${meaning.dir} is not a folder: recall and indexing fail`, fix: 'point embed.model_path at a model folder (config.json, tokenizer.json, onnx/model.onnx), or unset it and use a pulled model (embed.model)' }];
      }
      if (embedding.transformersInstalled === false) {
        return [{ id: 'embed', status: 'fail', detail: 'embed.provider = "transformers" but @huggingface/transformers is not installed: recall and indexing fail', fix: `run \`npm install @huggingface/transformers\` in ${facts.moon.packageDir}` }];
      }
      if (meaning.present === false) {
        return [
          {
            id: 'embed',
            status: 'warn',
            detail: `embed.provider = "transformers" wants the model "${meaning.model}", which is not in ${meaning.dir}: recall uses words only; ${inHome}`,
            fix: `run \`${meaning.pull ?? 'moon models pull'}\` (offline: copy a pulled model's folder from another machine to ${meaning.dir})`,
          },
        ];
      }
      const which = meaning.present === true ? `the model "${meaning.model}" (${meaning.dir})` : `the model folder ${meaning.dir} (embed.model_path)`;
      return [{ id: 'embed', status: 'ok', detail: `recall uses words + meaning via transformers: ${which}` }];
    }
    default:
      return [{ id: 'embed', status: 'ok', detail: `recall uses words + meaning via ${meaning.provider}${meaning.model ? ` (${meaning.model})` : ''}; ${inHome}` }];
  }
};

/** Every check, in the order they are shown. */
export const CHECKS: readonly Check[] = [checkNode, checkSqliteModules, checkConfig, checkHome, checkSources, checkAgents, checkWatcher, checkHookServer, checkEmbedding, checkEngine, checkPostgres];

export function runChecks(facts: DoctorFacts, checks: readonly Check[] = CHECKS): CheckResult[] {
  return checks.flatMap((check) => check(facts));
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

function shellQuote(path: string): string {
  return /^[A-Za-z0-9/._+:@=,~-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function maskPassword(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
