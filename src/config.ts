import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { resolveHome } from './archive/moon-home.js';
import { MoonError } from './errors.js';
import { checkMarkerPattern } from './markers/extract.js';
import { DEFAULT_SESSION_FIELDS, SESSION_FIELDS, type SessionField } from './store/types.js';
import { maskUrlPassword } from './text/mask-url.js';
import { isValidTimezone, systemTimezone } from './time/zone.js';

export { maskUrlPassword };

/**
 * One schema, three layers: $MOON_HOME/moon.toml, then MOON_* environment variables, then flags.
 * Every key has exactly one spelling per layer (ENV_KEYS below), and a bad value is an error naming the key.
 */
/** A regex as privacy.extra_patterns holds it: compiled once here so a typo is a config error, not a crash later. */
function checkPattern(pattern: string, context: z.RefinementCtx): void {
  try {
    new RegExp(pattern, 'g');
  } catch (error) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: `is not a valid regular expression: ${(error as Error).message}` });
  }
}

/** A marker pattern (markers.patterns): it must compile, as the extractor compiles it, and capture the marker's text. */
function checkMarkerRegex(pattern: string, context: z.RefinementCtx): void {
  const checked = checkMarkerPattern(pattern);
  if ('error' in checked) context.addIssue({ code: z.ZodIssueCode.custom, message: `is not a valid regular expression: ${checked.error}` });
  else if (checked.groups < 1) context.addIssue({ code: z.ZodIssueCode.custom, message: 'needs a capture group for the marker\'s text, e.g. "@\\/risk:\\s*(.+)"' });
}

/** An entry of serve.allowed_origins: exactly a browser origin (scheme, host, port), as browsers send it. */
function checkOrigin(value: string, context: z.RefinementCtx): void {
  let origin: string | null = null;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
  } catch {
    // not a URL
  }
  if (origin !== value) context.addIssue({ code: z.ZodIssueCode.custom, message: `"${value}" is not an origin like "https://app.example.com" (http or https, host and port only, lower case, no slash)` });
}

/**
 * LLM providers (src/llm/): `local` is extractive and offline, `command` runs an agent CLI (distill.command), the
 * rest speak a vendor's HTTP API.
 */
export const LLM_PROVIDERS = ['local', 'openai', 'anthropic', 'gemini', 'openai-compatible', 'command'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];

const timezone = z.string().refine(isValidTimezone, { message: 'is not an IANA time zone (e.g. "Australia/Sydney")' });

const schema = z
  .object({
    sources: z
      .object({
        /** Folders or files to scan. Empty: the default locations of Claude Code, Codex and OpenClaw. */
        roots: z.array(z.string().min(1)).default([]),
        /** Globs of transcript paths or session working directories never indexed (a `.moonignore` does the same). */
        exclude: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .default({ roots: [], exclude: [] }),
    privacy: z
      .object({
        redact: z.boolean().default(true),
        /** Checked when the config is loaded: a bad pattern fails every command, `config --show` included. */
        extra_patterns: z.array(z.string().superRefine(checkPattern)).default([]),
      })
      .strict()
      .default({ redact: true, extra_patterns: [] }),
    distill: z
      .object({
        residential_timezone: timezone.optional(),
        /** Who writes L2 synthesis (and, later, digests and summaries): `local` is extractive and needs no network. */
        provider: z.enum(LLM_PROVIDERS).default('local'),
        model: z.string().min(1).optional(),
        base_url: z.string().url().optional(),
        /** The NAME of the environment variable holding the API key — never the key itself. */
        api_key_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be the name of an environment variable, e.g. "OPENAI_API_KEY"' })
          .optional(),
        /**
         * `provider = "command"`: the agent CLI to run, reading the prompt on stdin and printing the answer — a
         * command line (split like a shell would, without one) or its argv, e.g. "claude -p --output-format json".
         */
        command: z.union([z.string().trim().min(1), z.array(z.string().min(1)).min(1)], { error: 'must be a command line or a list of its words' }).optional(),
        timeout_ms: z.number().int().positive().default(60_000),
        /** Attempts per request, the first included. */
        max_tries: z.number().int().min(1).max(10).default(3),
        /** L1 input chunking: "auto" (from model_context_tokens) or a positive number of bytes. */
        chunk_bytes: z.union([z.literal('auto'), z.number().int().positive()], { error: 'must be "auto" or a positive whole number of bytes' }).default('auto'),
        max_chunks: z.number().int().min(1).optional(),
        model_context_tokens: z.number().int().min(1).optional(),
        /** L1 normalisations per watcher cycle, oldest pending first. */
        max_per_cycle: z.number().int().min(1).default(10),
      })
      .strict()
      .default({ provider: 'local', timeout_ms: 60_000, max_tries: 3, chunk_bytes: 'auto', max_per_cycle: 10 }),
    watcher: z
      .object({
        /** Seconds between automatic L1 runs. */
        cooldown_secs: z.number().int().min(0).default(300),
        /** Seconds between cycles when no file event wakes the watcher. */
        poll_interval_secs: z.number().int().min(1).default(30),
        /** Quiet time after a file event before the cycle runs, so a burst of appends is one cycle. */
        debounce_ms: z.number().int().min(0).default(1_000),
      })
      .strict()
      .default({ cooldown_secs: 300, poll_interval_secs: 30, debounce_ms: 1_000 }),
    context: z
      .object({
        /** A session's context usage at which it is snapshotted and indexed at once (compaction is near). */
        compaction_start_ratio: z.number().gt(0).max(2).default(0.8),
        compaction_emergency_ratio: z.number().gt(0).max(2).default(0.95),
      })
      .strict()
      .default({ compaction_start_ratio: 0.8, compaction_emergency_ratio: 0.95 }),
    logs: z
      .object({
        /** Where the watcher's log, the audit log and the daemon lock live. Unset: $MOON_HOME/logs. */
        dir: z.string().min(1).optional(),
      })
      .strict()
      .default({}),
    session: z
      .object({
        /** The session the agent is in now: excluded from indexing and recall (seed 002). */
        current_id: z.string().min(1).optional(),
      })
      .strict()
      .default({}),
    index: z
      .object({
        max_line_bytes: z.number().int().positive().default(32 * 1024 * 1024),
        min_message_chars: z.number().int().min(0).default(10),
        /** How long a writer waits for another moon process holding the index's write lock before giving up. */
        lock_timeout_ms: z.number().int().positive().default(5 * 60 * 1000),
        /** Worker threads that read, parse and project beside the writer; unset: one per core but the writer's (0: none). */
        workers: z.number().int().min(0).max(64).optional(),
      })
      .strict()
      .default({ max_line_bytes: 32 * 1024 * 1024, min_message_chars: 10, lock_timeout_ms: 5 * 60 * 1000 }),
    recall: z
      .object({
        limit: z.number().int().positive().max(1000).default(10),
        messages_per_session: z.number().int().positive().max(100).default(5),
        snippet_chars: z.number().int().min(80).max(4000).default(320),
        /** `hybrid`: fused lexical, trigram, vector and temporal signals; `bm25`: plain BM25 (the baseline). */
        strategy: z.enum(['hybrid', 'bm25']).default('hybrid'),
        /**
         * The session fields (src/fields/) hybrid recall ranks sessions by beside their messages, of title, summary,
         * digest, files, errors; default title, files, errors (store/types.ts DEFAULT_SESSION_FIELDS says why). `[]` (or
         * `["none"]`, as MOON_RECALL_SESSION_FIELDS=none) ranks by messages alone.
         */
        session_fields: z
          .array(z.enum([...SESSION_FIELDS, 'none']))
          .transform((fields) => fields.filter((field): field is SessionField => field !== 'none'))
          .default([...DEFAULT_SESSION_FIELDS]),
      })
      .strict()
      .default({ limit: 10, messages_per_session: 5, snippet_chars: 320, strategy: 'hybrid', session_fields: [...DEFAULT_SESSION_FIELDS] }),
    store: z
      .object({
        /**
         * A PostgreSQL URL (`postgres://user:pass@host:5432/db`): index into that shared database instead of the
         * embedded SQLite file under $MOON_HOME. Unset: the embedded file.
         */
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a PostgreSQL URL, e.g. "postgres://user:pass@host:5432/moon"' })
          .optional(),
      })
      .strict()
      .default({}),
    hooks: z
      .object({
        /** Tokens (cl100k_base) the session-start hook may hand the agent; 0 turns its context off. */
        session_start_budget_tokens: z.number().int().min(0).max(50_000).default(1500),
        /** Whether the user-prompt-submit hook adds a recall for each prompt (off: it prints nothing). */
        user_prompt_recall: z.boolean().default(false),
        /** Tokens the user-prompt-submit recall may hand the agent. */
        user_prompt_budget_tokens: z.number().int().min(0).max(20_000).default(400),
        /**
         * `auto`: the hooks that hand the agent context (session-start, user-prompt-submit, pre-compact) are answered
         * by a hook server the first of them starts — a process of the user's own, on a socket in the home, that
         * keeps moon loaded and exits when idle; `off`: every hook runs in its own process.
         */
        server: z.enum(['auto', 'off']).default('auto'),
        /** Seconds without a hook after which the hook server exits. */
        server_idle_seconds: z.number().int().min(1).max(86_400).default(600),
      })
      .strict()
      .default({ session_start_budget_tokens: 1500, user_prompt_recall: false, user_prompt_budget_tokens: 400, server: 'auto', server_idle_seconds: 600 }),
    embed: z
      .object({
        provider: z.enum(['none', 'local', 'openai-compatible', 'transformers']).default('none'),
        /**
         * The model: the name sent to an openai-compatible endpoint; for `transformers`, the model pulled by name into
         * $MOON_HOME/models (`moon models pull`; unset: the default model) unless model_path names a folder.
         */
        model: z.string().min(1).optional(),
        base_url: z.string().url().optional(),
        api_key: z.string().min(1).optional(),
        /** A local ONNX model folder for the `transformers` provider, instead of a model pulled by name. */
        model_path: z.string().min(1).optional(),
        dims: z.number().int().positive().max(8192).optional(),
        batch_size: z.number().int().positive().max(2048).default(64),
        timeout_ms: z.number().int().positive().default(30_000),
      })
      .strict()
      .default({ provider: 'none', batch_size: 64, timeout_ms: 30_000 }),
    /** Where `moon models pull` downloads embedding models from: a hub that speaks the Hugging Face protocol. */
    models: z
      .object({
        /** The hub's base URL. Unset: $HF_ENDPOINT when set, else https://huggingface.co. */
        endpoint: z.string().url().optional(),
        /** The NAME of the environment variable holding a hub token (sent only to the endpoint) — never the token itself. */
        token_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be the name of an environment variable, e.g. "HF_TOKEN"' })
          .default('HF_TOKEN'),
      })
      .strict()
      .default({ token_env: 'HF_TOKEN' }),
    /**
     * The memory planes and the context pack (seed 003 §8). Every switch fails open by default: a plane that is
     * off, missing, failing or slow contributes nothing and the pack says so.
     */
    /**
     * `@/` semantic markers (seed 004 §2): which types are found in every indexed message and how much each
     * matters. Changing them re-derives every stored marker at the next `moon index`.
     */
    markers: z
      .object({
        /** Keep seed 004's nine types (decision, breaking, security, bug, api, pattern, perf, todo, ref). */
        defaults: z.boolean().default(true),
        /** Custom types; one named like a default replaces that default's pattern and priority. */
        patterns: z
          .array(
            z
              .object({
                type: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, { message: 'must be a lower-case word (a-z, digits, _; up to 32 characters), e.g. "risk"' }),
                /** A regular expression (matched case-insensitively) whose first capture group is the marker's text. */
                pattern: z.string().min(1).superRefine(checkMarkerRegex),
                priority: z.number().int().min(1).max(10).default(5),
              })
              .strict(),
          )
          .default([]),
        /** Lines of context kept before and after each marker. */
        context_lines: z.number().int().min(0).max(5).default(2),
      })
      .strict()
      .default({ defaults: true, patterns: [], context_lines: 2 }),
    /** `moon serve`: browser origins (web pages) allowed to call the local HTTP API; none by default. */
    serve: z
      .object({
        allowed_origins: z.array(z.string().superRefine(checkOrigin)).default([]),
      })
      .strict()
      .default({ allowed_origins: [] }),
    memory: z
      .object({
        /** Off: `moon context` and the context_pack tool hand out an empty pack (every subsystem omitted as off). */
        enabled: z.boolean().default(true),
        /** Plane A: `beads` reads the repository's `.beads/` issues (the pack's planning section). */
        planning: z.enum(['off', 'beads']).default('beads'),
        /** Plane B: `digest` adds what happened before (today: recall over the namespace's sessions). */
        history: z.enum(['off', 'digest']).default('digest'),
        /** Plane C: `moon` (moon's own long-term memory), `mem0` (a Mem0 server), or off. */
        long_term: z.enum(['off', 'moon', 'mem0']).default('moon'),
        /** False: a failing or slow subsystem raises instead of being left out of the pack. */
        fail_open: z.boolean().default(true),
        /** Tokens (cl100k_base) a context pack may hold when the caller gives no budget. */
        context_budget_tokens: z.number().int().min(0).max(200_000).default(2000),
      })
      .strict()
      .default({ enabled: true, planning: 'beads', history: 'digest', long_term: 'moon', fail_open: true, context_budget_tokens: 2000 }),
  })
  .strict();

export type ConfigFile = z.infer<typeof schema>;

export interface MoonConfig extends ConfigFile {
  home: string;
  /** Where the values came from, for `moon config --show`. */
  origin: { file: string | null; env: string[] };
  distill: ConfigFile['distill'] & { residential_timezone: string };
}

type EnvKind = 'string' | 'boolean' | 'int' | 'number' | 'paths' | 'list' | 'int-or-string';
/** The environment variable of each key. One name per key — no aliases. */
export const ENV_KEYS: Record<string, { key: string; kind: EnvKind }> = {
  MOON_SOURCES: { key: 'sources.roots', kind: 'paths' },
  MOON_REDACT: { key: 'privacy.redact', kind: 'boolean' },
  MOON_RESIDENTIAL_TIMEZONE: { key: 'distill.residential_timezone', kind: 'string' },
  MOON_CURRENT_SESSION_ID: { key: 'session.current_id', kind: 'string' },
  MOON_MAX_LINE_BYTES: { key: 'index.max_line_bytes', kind: 'int' },
  MOON_LOCK_TIMEOUT_MS: { key: 'index.lock_timeout_ms', kind: 'int' },
  MOON_INDEX_WORKERS: { key: 'index.workers', kind: 'int' },
  MOON_RECALL_LIMIT: { key: 'recall.limit', kind: 'int' },
  MOON_RECALL_STRATEGY: { key: 'recall.strategy', kind: 'string' },
  MOON_RECALL_SESSION_FIELDS: { key: 'recall.session_fields', kind: 'list' },
  MOON_DATABASE_URL: { key: 'store.url', kind: 'string' },
  MOON_EMBED_PROVIDER: { key: 'embed.provider', kind: 'string' },
  MOON_EMBED_MODEL: { key: 'embed.model', kind: 'string' },
  MOON_EMBED_BASE_URL: { key: 'embed.base_url', kind: 'string' },
  MOON_EMBED_API_KEY: { key: 'embed.api_key', kind: 'string' },
  MOON_EMBED_MODEL_PATH: { key: 'embed.model_path', kind: 'string' },
  MOON_MODELS_ENDPOINT: { key: 'models.endpoint', kind: 'string' },
  MOON_DISTILL_PROVIDER: { key: 'distill.provider', kind: 'string' },
  MOON_DISTILL_MODEL: { key: 'distill.model', kind: 'string' },
  MOON_DISTILL_BASE_URL: { key: 'distill.base_url', kind: 'string' },
  MOON_DISTILL_API_KEY_ENV: { key: 'distill.api_key_env', kind: 'string' },
  MOON_DISTILL_COMMAND: { key: 'distill.command', kind: 'string' },
  MOON_DISTILL_TIMEOUT_MS: { key: 'distill.timeout_ms', kind: 'int' },
  MOON_DISTILL_CHUNK_BYTES: { key: 'distill.chunk_bytes', kind: 'int-or-string' },
  MOON_DISTILL_MAX_CHUNKS: { key: 'distill.max_chunks', kind: 'int' },
  MOON_DISTILL_MODEL_CONTEXT_TOKENS: { key: 'distill.model_context_tokens', kind: 'int' },
  MOON_DISTILL_MAX_PER_CYCLE: { key: 'distill.max_per_cycle', kind: 'int' },
  MOON_WATCHER_COOLDOWN_SECS: { key: 'watcher.cooldown_secs', kind: 'int' },
  MOON_WATCHER_POLL_INTERVAL_SECS: { key: 'watcher.poll_interval_secs', kind: 'int' },
  MOON_COMPACTION_START_RATIO: { key: 'context.compaction_start_ratio', kind: 'number' },
  MOON_COMPACTION_EMERGENCY_RATIO: { key: 'context.compaction_emergency_ratio', kind: 'number' },
  MOON_LOGS_DIR: { key: 'logs.dir', kind: 'string' },
  MOON_HOOKS_SESSION_START_BUDGET_TOKENS: { key: 'hooks.session_start_budget_tokens', kind: 'int' },
  MOON_HOOKS_USER_PROMPT_RECALL: { key: 'hooks.user_prompt_recall', kind: 'boolean' },
  MOON_HOOKS_USER_PROMPT_BUDGET_TOKENS: { key: 'hooks.user_prompt_budget_tokens', kind: 'int' },
  MOON_HOOKS_SERVER: { key: 'hooks.server', kind: 'string' },
  MOON_HOOKS_SERVER_IDLE_SECONDS: { key: 'hooks.server_idle_seconds', kind: 'int' },
  MOON_SERVE_ALLOWED_ORIGINS: { key: 'serve.allowed_origins', kind: 'list' },
  // Seed 003 §8 names these flags exactly, without the MOON_ prefix.
  MEMORY_ENABLED: { key: 'memory.enabled', kind: 'boolean' },
  MEMORY_PLANNING: { key: 'memory.planning', kind: 'string' },
  MEMORY_HISTORY: { key: 'memory.history', kind: 'string' },
  MEMORY_LONG_TERM: { key: 'memory.long_term', kind: 'string' },
  MEMORY_FAIL_OPEN: { key: 'memory.fail_open', kind: 'boolean' },
  MEMORY_CONTEXT_BUDGET_TOKENS: { key: 'memory.context_budget_tokens', kind: 'int' },
};

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Dotted keys set by flags, e.g. { 'session.current_id': 'abc' }. Applied last. */
  overrides?: Record<string, unknown>;
  home?: string;
}

export { resolveHome };

export function loadConfig(options: LoadConfigOptions = {}): MoonConfig {
  const env = options.env ?? process.env;
  const home = resolveHome(env, options.home);
  checkHome(home, options.home !== undefined ? '--home' : env.MOON_HOME ? 'MOON_HOME' : 'home');
  const file = join(home, 'moon.toml');
  let raw: Record<string, unknown> = {};
  let fileUsed: string | null = null;
  if (existsSync(file)) {
    try {
      raw = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>;
      fileUsed = file;
    } catch (error) {
      throw new MoonError('bad_config', `${file}: ${(error as Error).message}`);
    }
  }
  const envUsed: string[] = [];
  for (const [name, spec] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setDotted(raw, spec.key, parseEnvValue(name, value, spec.kind));
    envUsed.push(name);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    if (value !== undefined) setDotted(raw, key, value);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.join('.') || '(root)';
    const where = describeKeySource(key, fileUsed, envUsed, options.overrides);
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => (key === '(root)' ? k : `${key}.${k}`)).join(', ')}`
        : `${key}: ${issue.message}`;
    throw new MoonError('bad_config', `${where}${message}`, { hint: 'see docs/cli.md#configuration' });
  }
  const value = parsed.data;
  checkEmbedKeys(value.embed, (key) => describeKeySource(key, fileUsed, envUsed, options.overrides));
  checkDistillKeys(value.distill, (key) => describeKeySource(key, fileUsed, envUsed, options.overrides));
  return Object.freeze({
    ...value,
    home,
    origin: { file: fileUsed, env: envUsed },
    distill: { ...value.distill, residential_timezone: value.distill.residential_timezone ?? systemTimezone() },
  });
}

/** Every command needs $MOON_HOME to be a folder (or not to exist yet): a file there is a mistake to name at once. */
function checkHome(home: string, origin: string): void {
  let stat;
  try {
    stat = statSync(home);
  } catch {
    return;
  }
  if (!stat.isDirectory()) {
    throw new MoonError('bad_config', `${origin}: ${home} is not a folder`, { hint: 'point MOON_HOME (or --home) at a folder, or remove the file' });
  }
}

/**
 * Keys a provider cannot start without; checked at load so every command fails the same clear way. (`transformers`
 * needs none: without model_path it uses the model named by embed.model, or the default one, from $MOON_HOME/models.)
 */
const EMBED_REQUIRED: Record<string, { key: 'base_url' | 'model'; example: string }[]> = {
  'openai-compatible': [
    { key: 'base_url', example: 'e.g. "http://127.0.0.1:11434/v1" for Ollama' },
    { key: 'model', example: 'the model name the endpoint expects, e.g. "nomic-embed-text"' },
  ],
};

function checkEmbedKeys(embed: ConfigFile['embed'], whereOf: (key: string) => string): void {
  for (const { key, example } of EMBED_REQUIRED[embed.provider] ?? []) {
    if (embed[key] !== undefined) continue;
    throw new MoonError('bad_config', `${whereOf('embed.provider')}embed.${key} is required when embed.provider = "${embed.provider}"`, {
      hint: `set embed.${key} (MOON_EMBED_${key.toUpperCase()}): ${example}`,
    });
  }
}

/**
 * A remote LLM provider needs a model; openai-compatible also needs its server; command needs its command line.
 * Keys come from api_key_env.
 */
const DISTILL_REQUIRED: Record<string, { key: 'base_url' | 'model' | 'command'; example: string }[]> = {
  openai: [{ key: 'model', example: 'e.g. "gpt-4o-mini"' }],
  anthropic: [{ key: 'model', example: 'e.g. "claude-3-5-haiku-latest"' }],
  gemini: [{ key: 'model', example: 'e.g. "gemini-1.5-flash"' }],
  'openai-compatible': [
    { key: 'base_url', example: 'e.g. "http://127.0.0.1:11434/v1" for Ollama' },
    { key: 'model', example: 'the model name the server expects, e.g. "llama3.1"' },
  ],
  command: [{ key: 'command', example: 'e.g. "claude -p --output-format json" or "codex exec"' }],
};

function checkDistillKeys(distill: ConfigFile['distill'], whereOf: (key: string) => string): void {
  for (const { key, example } of DISTILL_REQUIRED[distill.provider] ?? []) {
    if (distill[key] !== undefined) continue;
    throw new MoonError('bad_config', `${whereOf('distill.provider')}distill.${key} is required when distill.provider = "${distill.provider}"`, {
      hint: `set distill.${key} (MOON_DISTILL_${key.toUpperCase()}): ${example}`,
    });
  }
}

function describeKeySource(
  key: string,
  file: string | null,
  envUsed: string[],
  overrides: Record<string, unknown> | undefined,
): string {
  if (overrides && overrides[key] !== undefined) return 'flag: ';
  // A list entry (`serve.allowed_origins.0`) came from where its list did.
  const listKey = key.replace(/(?:\.\d+)+$/, '');
  const envName = Object.entries(ENV_KEYS).find(([name, spec]) => (spec.key === key || spec.key === listKey) && envUsed.includes(name))?.[0];
  if (envName) return `${envName}: `;
  return file ? `${file}: ` : '';
}

function parseEnvValue(name: string, value: string, kind: EnvKind): unknown {
  switch (kind) {
    case 'string':
      return value;
    case 'paths':
      return value.split(delimiter).filter((part) => part !== '');
    case 'list':
      return value.split(',').map((part) => part.trim()).filter((part) => part !== '');
    case 'boolean': {
      const lowered = value.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
      if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
      throw new MoonError('bad_config', `${name}: expected true or false, got "${value}"`);
    }
    case 'int': {
      if (!/^\d+$/.test(value)) throw new MoonError('bad_config', `${name}: expected a positive integer, got "${value}"`);
      return Number(value);
    }
    case 'int-or-string':
      return /^\d+$/.test(value) ? Number(value) : value;
    case 'number': {
      const parsed = Number(value);
      if (value.trim() === '' || !Number.isFinite(parsed)) throw new MoonError('bad_config', `${name}: expected a number, got "${value}"`);
      return parsed;
    }
  }
}

function setDotted(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

export { defaultSourceRoots } from './sources/default-roots.js';

/** The config as shown to people: secrets masked. */
export function describeConfig(config: MoonConfig): Record<string, unknown> {
  const { origin, ...rest } = config;
  const embed = { ...rest.embed, api_key: rest.embed.api_key ? '[set]' : undefined };
  const store = { ...rest.store, url: rest.store.url ? maskUrlPassword(rest.store.url) : undefined };
  return { ...rest, embed, store, origin };
}
