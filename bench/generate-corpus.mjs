#!/usr/bin/env node
// Deterministic synthetic transcript corpora for the benchmarks: N messages split across Claude Code, Codex and
// OpenClaw sessions, written to bench/corpora/<size>/ (git-ignored).
//
//   node bench/generate-corpus.mjs [10k|100k|1M|<n> ...] [--seed N] [--out DIR] [--force]
//
// Same size + seed + generator version => byte-identical files, so runs on different machines compare.
// A "message" is one logical message: a user prompt, an assistant text, a tool call or a tool result (an OpenClaw
// assistant entry holding text + a tool call counts as two). Metadata records (session headers, snapshots, token
// counts, thinking/reasoning, Codex event_msg echoes) are written too, as real transcripts have them, but are not
// counted as messages.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GENERATOR_VERSION = 1;
const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CORPORA = join(here, 'corpora');

// ---------------------------------------------------------------------------------------------------------
// Seeded PRNG (sfc32, seeded through splitmix32) and helpers.

function splitmix32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function createRng(seed) {
  const mix = splitmix32(seed);
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  const rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    /** Log-uniform integer in [min, max]: many short sessions, a long tail of long ones. */
    logInt: (min, max) => Math.min(max, Math.floor(Math.exp(Math.log(min) + next() * (Math.log(max + 1) - Math.log(min))))),
    hex: (length) => {
      let out = '';
      for (let i = 0; i < length; i++) out += '0123456789abcdef'[Math.floor(next() * 16)];
      return out;
    },
    alnum: (length) => {
      const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
      let out = '';
      for (let i = 0; i < length; i++) out += chars[Math.floor(next() * chars.length)];
      return out;
    },
    uuid: () => `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-${'89ab'[Math.floor(next() * 4)]}${rng.hex(3)}-${rng.hex(12)}`,
  };
  return rng;
}

// ---------------------------------------------------------------------------------------------------------
// Vocabulary: common English first (Zipf head), technical terms in the middle, rare terms in the tail.

const COMMON = `the to and of a in is it that for you this with on be not are as we can if or have at so but will
now from by an was use what need should then there all just one when which do also run here would like see let
check make sure add change update fix file code test error first new more out into only because after before
still same other any does get set work works working way looks think might value case call data each time function
something where them their than instead without again already both these those until while since back last next
how why some about could into over well very much many most used using return find found keep current actual
expected right wrong missing issue problem change changes line lines type types name names path paths option options
step steps version versions build tests passing failing pass fail output input result results message messages log
logs field fields list item items key keys config default local remote server client request response user users
before after small large simple clean quick slow fast safe unsafe old latest single multiple whole part parts start
end top bottom left inside outside above below between through across around against within per via now today later
tomorrow yesterday morning evening week month please thanks ok sure yes no maybe probably actually instead exactly
likely clearly simply already mostly almost enough rather quite really better worse best good bad nice correct
incorrect broken flaky stable random wait retry rerun restart remove delete rename move copy write read open close
keep drop skip handle handles handled catch throw throws thrown log logged print printed show shows shown explain
explains explained try tried trying want wanted means mean meant happen happens happened seem seems seemed look
looked looking found finding guess agree decide decided decision choose chose plan planned planning note notes idea
reason reasons point points question answer approach approaches option tradeoff tradeoffs cost risk risks benefit
simpler cleaner smaller bigger faster slower cheaper safer easier harder different similar separate together apart
problem problems solution solutions detail details context summary overview example examples place places thing
things part piece pieces area areas level levels layer layers side sides kind kinds sort order orders group groups
number numbers count counts size sizes limit limits range ranges total totals minute minutes second seconds hour hours
day days people team teams customer customers account accounts project projects repo repos branch branches commit
commits review reviews reviewer comment comments docs document documents page pages screen screens button buttons
form forms table tables column columns row rows record records entry entries event events job jobs task tasks`.split(/\s+/);

const TECH = `typescript javascript node npm pnpm yarn vite vitest jest eslint prettier tsconfig webpack esbuild rollup babel
react hooks component props state reducer context router route routes handler handlers middleware endpoint endpoints
api rest graphql grpc json yaml toml env dotenv secret secrets token tokens auth oauth jwt session sessions cookie
cookies cors csrf header headers status payload schema schemas migration migrations database postgres postgresql
sqlite mysql redis kafka rabbitmq queue queues worker workers cron scheduler backup backups restore snapshot replica
index indexes query queries transaction transactions deadlock lock locks mutex race timeout timeouts retry retries
backoff latency throughput p95 p99 cache caching invalidation ttl cdn cloudflare wrangler workers kv d1 r2 durable
docker dockerfile compose container containers image images kubernetes kubectl helm pod pods deployment deployments
ingress service services namespace terraform ansible nginx caddy systemd journalctl ssh rsync rclone s3 bucket buckets
aws gcp azure lambda iam vpc dns tls certificate certificates https http websocket sse stream streams buffer buffers
encoding utf8 unicode regex parser parsing lexer tokenizer ast compiler bundler sourcemap stacktrace traceback panic
segfault oom memory heap gc profiler flamegraph benchmark benchmarks fixture fixtures mock mocks stub spy snapshot
assertion coverage ci pipeline workflow github actions runner artifact artifacts release releases tag tags semver
changelog lockfile dependency dependencies package packages module modules import export esm commonjs cjs bundle
python pip venv pytest django flask fastapi pydantic asyncio rust cargo clippy tokio serde go goroutine gofmt
golang java gradle maven kotlin swift xcode android ios webhook webhooks stripe checkout invoice invoices payment
payments refund subscription billing ledger currency tax email smtp notification notifications slack telegram
discord bot prompt prompts model models embedding embeddings vector vectors llm agent agents tool tools mcp claude
codex openclaw transcript transcripts compaction context window tokenizer rate limiter throttle debounce pagination
cursor offset sorting filter filters search fts bm25 trigram fuzzy ranking relevance recall precision logging tracing
metrics prometheus grafana alert alerts oncall incident postmortem rollback canary feature flag flags toggle config
monorepo workspace workspaces turborepo nx lint typecheck refactor rename deprecate deprecated polyfill shim adapter
facade factory singleton interface interfaces generic generics enum union nullable undefined null promise async await
callback closure iterator generator decorator annotation reflection serialization deserialization validation zod
chmod chown permissions sudo root uid gid filesystem symlink inode fsync wal journal checkpoint vacuum analyze explain
migrate seed rollback upsert constraint foreign primary unique nullable default trigger view materialized partition`.split(/\s+/);

/** Rare terms: a handful of hits per 10k messages; the recall benchmark asks for some of them. */
const RARE = `idempotency flamegraph zstd backpressure tombstone hyperloglog bloom quokka memoization lockstep thundering
herd split-brain linearizable vectorclock crdt raft paxos gossip quorum sharding resharding hotspot skew jitter
sigterm sigkill zombie orphaned reentrant livelock starvation priority inversion bitflip checksum crc32 murmur
xxhash fnv siphash endianness alignment padding mmap madvise hugepages numa affinity cgroup seccomp apparmor
selinux capabilities namespaces unshare chroot pivot overlayfs squashfs btrfs zfs ext4 xfs tmpfs ramdisk`.split(/\s+/);

/** Verbs whose -ing / -ed forms join the vocabulary. */
const VERB_FORMS = `add check fix test build deploy migrate parse render validate cache index query retry restart rename
delete update install configure refactor review merge rebase revert release bump patch log trace profile benchmark
debug handle fetch load store sync backup restore schedule throttle debounce paginate sort filter search rank
serialize compile bundle lint format mock stub assert verify encrypt decrypt sign hash compress upload download
stream buffer flush commit push pull clone tag ship monitor alert page`.split(/\s+/);
/** Ticket ids: a long tail of rare tokens (each appears a few times per 100k messages). */
const TICKET_PREFIXES = ['PAY', 'OPS', 'WEB', 'API', 'INC'];

const VERBS = ['get', 'set', 'parse', 'handle', 'create', 'update', 'fetch', 'load', 'build', 'validate', 'resolve', 'render', 'compute', 'format', 'apply', 'sync'];
const NOUNS = ['Config', 'User', 'Session', 'Invoice', 'Token', 'Request', 'Response', 'Cache', 'Payment', 'Order', 'Webhook', 'Schema', 'Route', 'Logger', 'Queue', 'Worker', 'Index', 'Query', 'Backup', 'Migration'];
const IDENTIFIERS = [];
for (const verb of VERBS) for (const noun of NOUNS) IDENTIFIERS.push(`${verb}${noun}`);
for (const verb of VERBS.slice(0, 8)) for (const noun of NOUNS.slice(0, 12)) IDENTIFIERS.push(`${verb}_${noun.toLowerCase()}`);
const CONSTANTS = ['DATABASE_URL', 'STRIPE_SECRET_KEY', 'REDIS_URL', 'NODE_ENV', 'LOG_LEVEL', 'MAX_RETRIES', 'API_BASE_URL', 'SENTRY_DSN', 'PORT', 'JWT_SECRET', 'CACHE_TTL_SECONDS', 'FEATURE_FLAGS'];

const DIRS = ['src', 'src/lib', 'src/routes', 'src/components', 'src/server', 'src/db', 'test', 'tests', 'scripts', 'packages/api/src', 'packages/web/src', 'app', 'internal/store', 'cmd/server', 'lib', 'docs'];
const STEMS = ['index', 'config', 'payments', 'auth', 'session', 'router', 'schema', 'utils', 'queue', 'worker', 'cache', 'db', 'migrate', 'logger', 'invoice', 'webhook', 'server', 'client', 'backup', 'search'];
const EXTS = ['.ts', '.ts', '.ts', '.tsx', '.js', '.py', '.go', '.rs', '.md'];
const FIXED_FILES = ['package.json', 'tsconfig.json', 'docker-compose.yml', 'Dockerfile', 'wrangler.toml', 'Cargo.toml', 'pyproject.toml', '.github/workflows/ci.yml', 'README.md', '.env.example', 'vite.config.ts', 'Makefile'];

const COMMANDS = [
  'npm test', 'npm run build', 'npm run lint', 'npm run typecheck', 'npx vitest run', 'npx tsc --noEmit', 'pnpm install',
  'git status', 'git diff --stat', 'git log --oneline -10', 'git rebase -i main', 'git stash pop', 'git push --force-with-lease',
  'docker compose up -d', 'docker compose logs -f api', 'docker ps', 'kubectl get pods -n prod', 'kubectl rollout status deploy/api',
  'npx wrangler deploy', 'npx wrangler tail', 'terraform plan', 'terraform apply', 'cargo test', 'cargo clippy', 'go test ./...',
  'pytest -x -q', 'python -m pip install -r requirements.txt', 'psql $DATABASE_URL -c "select 1"', 'redis-cli ping',
  'curl -sI http://localhost:3000/health', 'ls -la', 'cat package.json', 'rg -n TODO src', 'make build', 'crontab -l',
  'journalctl -u api --since "1 hour ago"', 'systemctl restart api', 'du -sh node_modules', 'node --version', 'gh pr create --fill',
];

const PROJECTS = ['shop', 'ledger-api', 'homelab', 'blog', 'infra', 'mobile-app', 'search-service', 'billing', 'analytics', 'auth-gateway', 'docs-site', 'cli-tools', 'data-pipeline', 'notifier', 'scheduler', 'design-system', 'crm', 'inventory', 'chat-bot', 'ml-serving', 'payments-worker', 'admin-panel', 'status-page', 'edge-proxy', 'dotfiles', 'game-server', 'photo-sync', 'recipe-app', 'metrics-exporter', 'terraform-modules'];
const BRANCHES = ['main', 'main', 'main', 'develop', 'fix/flaky-tests', 'feat/webhooks', 'chore/deps', 'feat/search', 'fix/timeout', 'refactor/store'];

/** Multi-word phrases real prompts contain; the benchmark's multi-word queries hit them. */
const PHRASES = [
  'flaky test', 'database migration', 'deploy to production', 'exponential backoff', 'race condition', 'memory leak',
  'connection pool', 'rate limit', 'feature flag', 'dead letter queue', 'backup cron job', 'null pointer', 'type error',
  'merge conflict', 'cache invalidation', 'environment variable', 'unit tests', 'integration tests', 'pull request',
  'stack trace', 'schema change', 'cold start', 'retry logic', 'webhook signature', 'time zone',
];

/** A Zipf sampler over a word list (weight 1/rank^s), with an alias-free cumulative table and binary search. */
function zipf(words, exponent) {
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let i = 0; i < words.length; i++) {
    total += 1 / Math.pow(i + 1, exponent);
    cumulative[i] = total;
  }
  return (rng) => {
    const target = rng.next() * total;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
}

function buildVocabulary() {
  // A fixed shuffle (its own seed, independent of the corpus seed) interleaves technical terms into the English
  // head, so the most frequent technical words are as common as mid-frequency English ones.
  const shuffle = createRng(0x5eed);
  const tech = [...new Set(TECH)];
  const common = [...new Set(COMMON)];
  const words = [];
  let t = 0;
  for (let i = 0; i < common.length; i++) {
    words.push(common[i]);
    if (i > 30 && shuffle.chance(0.55) && t < tech.length) words.push(tech[t++]);
  }
  while (t < tech.length) words.push(tech[t++]);
  // Inflected forms stretch the tail to a few thousand distinct words: -ing/-ed for verbs, plurals for nouns.
  const derived = [];
  for (const verb of VERB_FORMS) {
    derived.push(verb.endsWith('e') ? `${verb.slice(0, -1)}ing` : `${verb}ing`);
    derived.push(verb.endsWith('e') ? `${verb}d` : `${verb}ed`);
    derived.push(/(s|x|sh|ch)$/.test(verb) ? `${verb}es` : `${verb}s`);
  }
  for (const noun of tech) {
    if (/^[a-z]{4,}$/.test(noun) && !/(s|x|sh|ch|y)$/.test(noun)) derived.push(`${noun}s`);
  }
  const all = [...new Set([...words, ...derived, ...RARE])];
  const paths = [];
  for (const dir of DIRS) for (const stem of STEMS) paths.push(`${dir}/${stem}${EXTS[(dir.length + stem.length) % EXTS.length]}`);
  paths.unshift(...FIXED_FILES, 'src/lib/payments.ts', 'src/routes/webhook.ts', 'test/invoice.test.ts');
  return {
    word: zipf(all, 1.0),
    identifier: zipf(IDENTIFIERS, 0.8),
    path: zipf([...new Set(paths)], 0.9),
    command: zipf(COMMANDS, 0.9),
    phrase: zipf(PHRASES, 0.7),
    size: all.length + IDENTIFIERS.length + paths.length + COMMANDS.length,
  };
}

const VOCAB = buildVocabulary();

// ---------------------------------------------------------------------------------------------------------
// Text generators.

function sentence(rng, { min = 6, max = 22 } = {}) {
  const n = rng.int(min, max);
  const words = new Array(n);
  for (let i = 0; i < n; i++) words[i] = VOCAB.word(rng);
  const slot = () => rng.int(1, n - 1);
  const roll = rng.next();
  if (roll < 0.12) words[slot()] = `\`${VOCAB.identifier(rng)}\``;
  else if (roll < 0.22) words[slot()] = VOCAB.path(rng);
  else if (roll < 0.28) words[slot()] = `\`${VOCAB.command(rng)}\``;
  else if (roll < 0.36) words[slot()] = VOCAB.phrase(rng);
  else if (roll < 0.38) words[slot()] = rng.pick(CONSTANTS);
  else if (roll < 0.41) words[slot()] = `${rng.pick(TICKET_PREFIXES)}-${rng.int(100, 2999)}`;
  else if (roll < 0.42) words[slot()] = rng.pick(['—', 'é', '✓', '→', 'naïve', 'café', '🙂', '✅']);
  const first = words[0];
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return `${words.join(' ')}${rng.pick(['.', '.', '.', '.', '?', ':', '!'])}`;
}

function paragraph(rng, min = 1, max = 4) {
  const n = rng.int(min, max);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(sentence(rng));
  return parts.join(' ');
}

function codeLine(rng) {
  const id = VOCAB.identifier(rng);
  switch (rng.int(0, 7)) {
    case 0:
      return `const ${id} = await ${VOCAB.identifier(rng)}(${VOCAB.word(rng)}, { ${VOCAB.word(rng)}: ${rng.int(0, 5000)} });`;
    case 1:
      return `export function ${id}(${VOCAB.word(rng)}: ${rng.pick(['string', 'number', 'Request', 'Config', 'unknown'])}) {`;
    case 2:
      return `  if (!${VOCAB.word(rng)}) throw new Error('${sentence(rng, { min: 3, max: 8 }).replace(/'/g, '')}');`;
    case 3:
      return `import { ${id} } from '${VOCAB.path(rng).replace(/\.\w+$/, '.js')}';`;
    case 4:
      return `  // ${sentence(rng, { min: 4, max: 14 })}`;
    case 5:
      return `  return ${id}.${VOCAB.identifier(rng)}(${rng.pick(['', 'options', 'ctx', 'row.id', 'input'])});`;
    case 6:
      return '}';
    default:
      return `  ${VOCAB.word(rng)}.${VOCAB.word(rng)} = ${rng.pick(['null', 'true', 'false', `'${VOCAB.word(rng)}'`, String(rng.int(0, 999))])};`;
  }
}

function codeBlock(rng, minLines, maxLines, numbered = false) {
  const n = rng.int(minLines, maxLines);
  const lines = [];
  for (let i = 0; i < n; i++) lines.push(numbered ? `${String(i + 1).padStart(6)}\t${codeLine(rng)}` : codeLine(rng));
  return lines.join('\n');
}

function commandOutput(rng, command) {
  const lines = [];
  if (/test|vitest|pytest|cargo test|go test/.test(command)) {
    const files = rng.int(3, 30);
    for (let i = 0; i < Math.min(files, rng.int(2, 12)); i++) lines.push(` ✓ ${VOCAB.path(rng)} (${rng.int(1, 60)} tests) ${rng.int(2, 900)}ms`);
    if (rng.chance(0.35)) {
      lines.push(` ✗ ${VOCAB.path(rng)} > ${sentence(rng, { min: 3, max: 8 })}`);
      lines.push(`   AssertionError: expected '${VOCAB.word(rng)}' to equal '${VOCAB.word(rng)}'`);
      lines.push(`    at ${VOCAB.identifier(rng)} (${VOCAB.path(rng)}:${rng.int(1, 400)}:${rng.int(1, 80)})`);
      lines.push(`\n Test Files  1 failed | ${files - 1} passed (${files})`);
    } else {
      lines.push(`\n Test Files  ${files} passed (${files})\n      Tests  ${files * rng.int(3, 12)} passed`);
    }
  } else if (/build|tsc|typecheck|lint|clippy/.test(command)) {
    if (rng.chance(0.4)) {
      for (let i = 0; i < rng.int(1, 6); i++) {
        lines.push(`${VOCAB.path(rng)}:${rng.int(1, 500)}:${rng.int(1, 80)} - error TS${rng.int(2000, 2999)}: ${sentence(rng, { min: 5, max: 12 })}`);
      }
    } else {
      lines.push(`vite v6.${rng.int(0, 3)}.${rng.int(0, 9)} building for production...`, `✓ ${rng.int(20, 900)} modules transformed.`);
      for (let i = 0; i < rng.int(1, 5); i++) lines.push(`dist/${VOCAB.word(rng)}-${rng.hex(8)}.js  ${rng.int(1, 400)}.${rng.int(10, 99)} kB`);
      lines.push(`✓ built in ${rng.int(1, 30)}.${rng.int(10, 99)}s`);
    }
  } else if (command.startsWith('git')) {
    for (let i = 0; i < rng.int(2, 12); i++) lines.push(`${rng.hex(7)} ${sentence(rng, { min: 3, max: 9 })}`);
  } else if (/kubectl|docker/.test(command)) {
    for (let i = 0; i < rng.int(2, 10); i++) lines.push(`${VOCAB.word(rng)}-${rng.hex(5)}   ${rng.pick(['Running', 'Running', 'CrashLoopBackOff', 'Pending', 'Up 3 hours'])}   ${rng.int(0, 9)}   ${rng.int(1, 59)}m`);
  } else {
    for (let i = 0; i < rng.int(1, 14); i++) lines.push(rng.chance(0.5) ? sentence(rng, { min: 3, max: 12 }) : codeLine(rng));
  }
  // A few results are huge (full logs, long files): real transcripts have a heavy tail.
  if (rng.chance(0.025)) lines.push(codeBlock(rng, 150, 400));
  return lines.join('\n');
}

/** Fake secret-looking values, so redaction runs on realistic input. Never real: built from "FAKE"/"EXAMPLE". */
function fakeEnvFile(rng) {
  return [
    `DATABASE_URL=postgres://app:FAKEpw${rng.alnum(10)}@db.internal:5432/app`,
    `STRIPE_SECRET_KEY=sk_test_FAKE${rng.alnum(20)}`,
    `JWT_SECRET=EXAMPLE${rng.alnum(24)}`,
    `LOG_LEVEL=${rng.pick(['info', 'debug'])}`,
  ].join('\n');
}

function userPrompt(rng) {
  const roll = rng.next();
  if (roll < 0.03) return rng.pick(['ok', 'thanks', 'continue', 'yes', 'go ahead', 'lgtm']);
  if (roll < 0.045) return '[Request interrupted by user]';
  let text = paragraph(rng, 1, 3);
  if (rng.chance(0.12)) text += `\n\n\`\`\`\n${commandOutput(rng, VOCAB.command(rng))}\n\`\`\``;
  if (rng.chance(0.05)) text = `${text}\n\n${paragraph(rng, 2, 5)}`;
  return text;
}

function assistantText(rng) {
  const parts = [paragraph(rng, 1, 3)];
  if (rng.chance(0.45)) {
    const bullets = [];
    for (let i = 0; i < rng.int(2, 6); i++) bullets.push(`- ${sentence(rng, { min: 4, max: 14 })}`);
    parts.push(bullets.join('\n'));
  }
  if (rng.chance(0.3)) parts.push(paragraph(rng, 1, 3));
  if (rng.chance(0.12)) parts.push(`\`\`\`ts\n${codeBlock(rng, 3, 15)}\n\`\`\``);
  return parts.join('\n\n');
}

/** One tool call in neutral form; each format renders it its own way. */
function toolCall(rng) {
  const roll = rng.next();
  if (roll < 0.45) {
    const command = rng.chance(0.003) ? 'cat .env' : VOCAB.command(rng);
    return { kind: 'shell', command, output: command === 'cat .env' ? fakeEnvFile(rng) : commandOutput(rng, command), error: rng.chance(0.08) };
  }
  if (roll < 0.7) return { kind: 'read', path: VOCAB.path(rng), output: codeBlock(rng, 10, 120, true), error: false };
  if (roll < 0.85) {
    return { kind: 'edit', path: VOCAB.path(rng), oldText: codeBlock(rng, 1, 6), newText: codeBlock(rng, 1, 10), output: 'updated', error: false };
  }
  if (roll < 0.93) {
    const pattern = rng.chance(0.5) ? VOCAB.identifier(rng) : VOCAB.word(rng);
    const hits = [];
    for (let i = 0; i < rng.int(0, 14); i++) hits.push(`${VOCAB.path(rng)}:${rng.int(1, 600)}:${codeLine(rng)}`);
    return { kind: 'grep', pattern, path: 'src', output: hits.join('\n') || 'No matches found', error: false };
  }
  return { kind: 'write', path: VOCAB.path(rng), content: codeBlock(rng, 10, 60), output: 'written', error: false };
}

// ---------------------------------------------------------------------------------------------------------
// Session shapes per format. Each writer returns { lines: string[], messages: number }.

class Clock {
  constructor(startMs) {
    this.ms = startMs;
  }
  tick(rng, minS, maxS) {
    this.ms += Math.round((minS + rng.next() * (maxS - minS)) * 1000);
    return new Date(this.ms).toISOString();
  }
  now() {
    return new Date(this.ms).toISOString();
  }
}

/**
 * Turns: a prompt, then 0..8 rounds of (optional text + tool call + result), then a closing text. Counted in
 * messages (prompt 1, text 1, call 1, result 1, closing text 1); the last turn is cut to land on the target.
 */
function planTurns(rng, target) {
  const turns = [];
  let messages = 0;
  while (messages < target) {
    const left = target - messages;
    if (left === 1) {
      turns.push({ prompt: userPrompt(rng), rounds: [], close: false });
      messages += 1;
      break;
    }
    const rounds = [];
    let count = 2; // prompt + closing text
    const wanted = rng.chance(0.2) ? 0 : rng.int(1, 8);
    for (let i = 0; i < wanted; i++) {
      const text = rng.chance(0.4);
      const cost = text ? 3 : 2;
      if (count + cost > left) {
        if (count + 2 <= left) {
          rounds.push({ text: false, call: toolCall(rng) });
          count += 2;
        }
        break;
      }
      rounds.push({ text, call: toolCall(rng) });
      count += cost;
    }
    turns.push({ prompt: userPrompt(rng), rounds, close: true });
    messages += count;
  }
  return { turns, messages };
}

function claudeSession(rng, target, startMs, project) {
  const sessionId = rng.uuid();
  const cwd = rng.chance(0.7) ? `/home/dev/${project}` : `/Users/sam/code/${project}`;
  const common = { isSidechain: false, userType: 'external', cwd, sessionId, version: rng.pick(['2.0.76', '2.1.14', '2.1.41']), gitBranch: rng.pick(BRANCHES) };
  const model = rng.pick(['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-sonnet-4-5-20250929']);
  const clock = new Clock(startMs);
  const lines = [];
  let parent = null;
  let messages = 0;
  const push = (record) => {
    lines.push(JSON.stringify(record));
  };
  const rec = (type, message, extra) => {
    const uuid = rng.uuid();
    push({ parentUuid: parent, ...common, type, message, uuid, timestamp: clock.now(), ...extra });
    parent = uuid;
    messages += 1;
    return uuid;
  };
  const usage = () => ({ input_tokens: rng.int(1, 40), cache_creation_input_tokens: rng.int(0, 4000), cache_read_input_tokens: rng.int(8000, 150000), output_tokens: rng.int(20, 2000) });
  const { turns } = planTurns(rng, target);
  const compactAt = target > 250 ? Math.floor(turns.length * 0.6) : -1;
  turns.forEach((turn, index) => {
    if (index === compactAt) {
      clock.tick(rng, 5, 30);
      const boundary = rng.uuid();
      push({ parentUuid: null, logicalParentUuid: parent, ...common, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, timestamp: clock.now(), uuid: boundary, level: 'info', compactMetadata: { trigger: 'auto', preTokens: rng.int(150000, 170000) } });
      parent = boundary;
      const summary = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n${assistantText(rng)}`;
      const uuid = rng.uuid();
      push({ parentUuid: parent, ...common, type: 'user', message: { role: 'user', content: summary }, isCompactSummary: true, isVisibleInTranscriptOnly: true, uuid, timestamp: clock.tick(rng, 0, 1) });
      parent = uuid;
    }
    clock.tick(rng, 20, index === 0 ? 1 : 900);
    if (rng.chance(0.1)) push({ type: 'file-history-snapshot', messageId: rng.uuid(), snapshot: { messageId: rng.uuid(), trackedFileBackups: {}, timestamp: clock.now() }, isSnapshotUpdate: false });
    rec('user', { role: 'user', content: turn.prompt });
    for (const round of turn.rounds) {
      const messageId = `msg_01${rng.alnum(22)}`;
      const requestId = `req_011${rng.alnum(21)}`;
      const assistant = (block) =>
        rec('assistant', { model, id: messageId, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null, usage: usage() }, { requestId });
      clock.tick(rng, 2, 40);
      if (rng.chance(0.15)) {
        // Thinking blocks are written but never indexed; they still cost bytes to read.
        push({ parentUuid: parent, ...common, type: 'assistant', message: { model, id: messageId, type: 'message', role: 'assistant', content: [{ type: 'thinking', thinking: paragraph(rng, 1, 3), signature: rng.alnum(120) }] }, requestId, uuid: rng.uuid(), timestamp: clock.now() });
      }
      if (round.text) assistant({ type: 'text', text: assistantText(rng) });
      const callId = `toolu_01${rng.alnum(22)}`;
      const call = round.call;
      const [name, input] =
        call.kind === 'shell'
          ? ['Bash', { command: call.command, description: sentence(rng, { min: 3, max: 7 }).slice(0, -1) }]
          : call.kind === 'read'
            ? ['Read', { file_path: `${cwd}/${call.path}` }]
            : call.kind === 'edit'
              ? ['Edit', { file_path: `${cwd}/${call.path}`, old_string: call.oldText, new_string: call.newText }]
              : call.kind === 'grep'
                ? ['Grep', { pattern: call.pattern, path: `${cwd}/${call.path}`, output_mode: 'content', '-n': true }]
                : ['Write', { file_path: `${cwd}/${call.path}`, content: call.content }];
      clock.tick(rng, 0.2, 3);
      assistant({ type: 'tool_use', id: callId, name, input });
      clock.tick(rng, 0.05, 30);
      const output =
        call.kind === 'edit' ? `The file ${cwd}/${call.path} has been updated successfully.` : call.kind === 'write' ? `File created successfully at: ${cwd}/${call.path}` : call.output;
      // Claude Code repeats the result in toolUseResult (whole file for Read): half the bytes of a real transcript.
      const toolUseResult =
        call.kind === 'read'
          ? { type: 'text', file: { filePath: `${cwd}/${call.path}`, content: output, numLines: output.split('\n').length, startLine: 1, totalLines: output.split('\n').length } }
          : call.kind === 'shell'
            ? { stdout: output, stderr: '', interrupted: false, isImage: false }
            : { filePath: `${cwd}/${call.path}` };
      rec('user', { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: output, ...(call.error ? { is_error: true } : {}) }] }, { toolUseResult });
    }
    if (turn.close) {
      clock.tick(rng, 2, 40);
      rec('assistant', { model, id: `msg_01${rng.alnum(22)}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: assistantText(rng) }], stop_reason: 'end_turn', usage: usage() }, { requestId: `req_011${rng.alnum(21)}` });
    }
  });
  const folder = cwd.replace(/[^A-Za-z0-9]/g, '-');
  return { path: join('claude-code', folder, `${sessionId}.jsonl`), lines, messages };
}

function codexSession(rng, target, startMs, project) {
  const id = `019${rng.hex(5)}-${rng.hex(4)}-7${rng.hex(3)}-${'89ab'[rng.int(0, 3)]}${rng.hex(3)}-${rng.hex(12)}`;
  const cwd = `/home/dev/${project}`;
  const clock = new Clock(startMs);
  const lines = [];
  let messages = 0;
  const push = (type, payload, counts = false) => {
    lines.push(JSON.stringify({ timestamp: clock.now(), type, payload }));
    if (counts) messages += 1;
  };
  push('session_meta', { id, timestamp: clock.now(), cwd, originator: 'codex_cli_rs', cli_version: rng.pick(['0.98.0', '0.104.0']), source: 'cli', model_provider: 'openai', base_instructions: { text: paragraph(rng, 3, 6) }, git: { commit_hash: rng.hex(40), branch: rng.pick(BRANCHES), repository_url: `git@github.com:example/${project}.git` } });
  const { turns } = planTurns(rng, target);
  let tokens = 0;
  turns.forEach((turn, index) => {
    clock.tick(rng, 20, index === 0 ? 1 : 900);
    push('turn_context', { cwd, approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model: 'gpt-5.3-codex', effort: rng.pick(['low', 'medium', 'high']) });
    push('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.prompt }] }, true);
    push('event_msg', { type: 'user_message', message: turn.prompt, images: [] });
    for (const round of turn.rounds) {
      clock.tick(rng, 2, 40);
      if (rng.chance(0.4)) push('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: `**${sentence(rng, { min: 2, max: 5 }).slice(0, -1)}**` }], encrypted_content: rng.alnum(rng.int(200, 1200)) });
      if (round.text) {
        const text = assistantText(rng);
        push('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }, true);
        push('event_msg', { type: 'agent_message', message: text });
      }
      const call = round.call;
      const callId = `call_${rng.alnum(24)}`;
      clock.tick(rng, 0.2, 3);
      if (call.kind === 'edit' || call.kind === 'write') {
        const body = call.kind === 'edit'
          ? `*** Begin Patch\n*** Update File: ${call.path}\n@@\n${call.oldText.split('\n').map((l) => `-${l}`).join('\n')}\n${call.newText.split('\n').map((l) => `+${l}`).join('\n')}\n*** End Patch`
          : `*** Begin Patch\n*** Add File: ${call.path}\n${call.content.split('\n').map((l) => `+${l}`).join('\n')}\n*** End Patch`;
        push('response_item', { type: 'custom_tool_call', status: 'completed', call_id: callId, name: 'apply_patch', input: body }, true);
        clock.tick(rng, 0.05, 1);
        push('response_item', { type: 'custom_tool_call_output', call_id: callId, output: JSON.stringify({ output: `Success. Updated the following files:\n${call.kind === 'edit' ? 'M' : 'A'} ${call.path}\n`, metadata: { exit_code: 0, duration_seconds: 0.0 } }) }, true);
      } else {
        const command = call.kind === 'shell' ? call.command : call.kind === 'read' ? `sed -n 1,120p ${call.path}` : `rg -n ${call.pattern} ${call.path}`;
        const output = call.output;
        if (rng.chance(0.5)) {
          push('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: command, workdir: cwd, yield_time_ms: 10000 }), call_id: callId }, true);
          clock.tick(rng, 0.05, 30);
          push('response_item', { type: 'function_call_output', call_id: callId, output: `Process exited with code ${call.error ? 1 : 0}\nWall time: ${rng.int(0, 40)}.${rng.int(1, 9)} seconds\nOutput:\n${output}` }, true);
        } else {
          push('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command], workdir: cwd, timeout_ms: 120000 }), call_id: callId }, true);
          clock.tick(rng, 0.05, 30);
          push('response_item', { type: 'function_call_output', call_id: callId, output: JSON.stringify({ output, metadata: { exit_code: call.error ? 1 : 0, duration_seconds: rng.int(0, 400) / 10 } }) }, true);
        }
      }
    }
    if (turn.close) {
      clock.tick(rng, 2, 40);
      const text = assistantText(rng);
      push('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }, true);
      push('event_msg', { type: 'agent_message', message: text });
    }
    tokens += rng.int(2000, 20000);
    push('event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: tokens, output_tokens: Math.floor(tokens / 12), total_tokens: tokens + Math.floor(tokens / 12) }, last_token_usage: { input_tokens: rng.int(5000, 200000), output_tokens: rng.int(100, 4000), total_tokens: rng.int(5000, 204000) }, model_context_window: 272000 } });
  });
  const date = new Date(startMs).toISOString();
  const stamp = date.slice(0, 19).replace(/:/g, '-');
  return { path: join('codex', date.slice(0, 4), date.slice(5, 7), date.slice(8, 10), `rollout-${stamp}-${id}.jsonl`), lines, messages };
}

function openclawSession(rng, target, startMs, project) {
  const id = rng.uuid();
  const clock = new Clock(startMs);
  const lines = [];
  let messages = 0;
  let parent = null;
  const entry = (type, body, counts = false) => {
    const eid = rng.hex(8);
    lines.push(JSON.stringify({ type, id: eid, parentId: parent, timestamp: clock.now(), ...body }));
    parent = eid;
    if (counts) messages += 1;
  };
  lines.push(JSON.stringify({ type: 'session', version: 3, id, timestamp: clock.now(), cwd: `/home/dev/${project}` }));
  entry('model_change', { provider: 'anthropic', modelId: 'claude-sonnet-4-6' });
  entry('thinking_level_change', { thinkingLevel: rng.pick(['off', 'low', 'medium']) });
  const usage = () => ({ input: rng.int(1, 50), output: rng.int(20, 2000), cacheRead: rng.int(5000, 120000), cacheWrite: 0, totalTokens: rng.int(5000, 122000) });
  const { turns } = planTurns(rng, target);
  turns.forEach((turn, index) => {
    clock.tick(rng, 20, index === 0 ? 1 : 900);
    const prompt = rng.chance(0.3)
      ? `Conversation info (untrusted metadata):\n\`\`\`json\n{ "message_id": "${rng.int(1000, 99999)}", "sender": "${rng.int(1e9, 2e9)}" }\n\`\`\`\n\n${turn.prompt}`
      : turn.prompt;
    entry('message', { message: { role: 'user', content: [{ type: 'text', text: prompt }], timestamp: clock.ms } }, true);
    // OpenClaw writes an assistant message's text and tool calls in one entry: a round's text joins its call.
    for (const round of turn.rounds) {
      clock.tick(rng, 2, 40);
      const call = round.call;
      const callId = `toolu_${rng.alnum(24)}`;
      const [name, args] =
        call.kind === 'shell'
          ? ['exec', { command: call.command }]
          : call.kind === 'read'
            ? ['read', { path: call.path }]
            : call.kind === 'edit'
              ? ['edit', { path: call.path, oldText: call.oldText, newText: call.newText }]
              : call.kind === 'grep'
                ? ['exec', { command: `rg -n ${call.pattern} ${call.path}` }]
                : ['write', { path: call.path, content: call.content }];
      const content = [...(round.text ? [{ type: 'text', text: assistantText(rng) }] : []), { type: 'toolCall', id: callId, name, arguments: args }];
      entry('message', { message: { role: 'assistant', content, api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-6', usage: usage(), stopReason: 'toolUse', timestamp: clock.ms } }, true);
      if (round.text) messages += 1; // the text counts as its own message, as in the other formats
      clock.tick(rng, 0.05, 30);
      const output = call.kind === 'edit' ? `Successfully replaced text in ${call.path}.` : call.kind === 'write' ? `Successfully wrote ${call.content.length} bytes to ${call.path}` : call.output;
      entry('message', { message: { role: 'toolResult', toolCallId: callId, toolName: name, content: [{ type: 'text', text: output }], isError: call.error, timestamp: clock.ms } }, true);
    }
    if (turn.close) {
      clock.tick(rng, 2, 40);
      entry('message', { message: { role: 'assistant', content: [{ type: 'text', text: assistantText(rng) }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-6', usage: usage(), stopReason: 'stop', timestamp: clock.ms } }, true);
    }
  });
  return { path: join('openclaw', 'agents', rng.pick(['main', 'main', 'main', 'ops', 'research']), 'sessions', `${id}.jsonl`), lines, messages };
}

// ---------------------------------------------------------------------------------------------------------
// Corpus assembly.

/** Share of messages per format: Claude Code dominates real archives, then Codex, then OpenClaw. */
const MIX = [
  ['claude-code', 0.55, claudeSession],
  ['codex', 0.3, codexSession],
  ['openclaw', 0.15, openclawSession],
];
const SPAN_START = Date.parse('2025-09-01T00:00:00Z');
const SPAN_END = Date.parse('2026-02-28T00:00:00Z');

export function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(String(text).trim());
  if (!match) throw new Error(`not a size: ${text} (use e.g. 10k, 100k, 1M or a number)`);
  const scale = { '': 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[match[2]];
  return Math.round(Number(match[1]) * scale);
}

export function sizeLabel(n) {
  if (n % 1e6 === 0) return `${n / 1e6}M`;
  if (n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}

export function generateCorpus({ messages, seed = 42, out = DEFAULT_CORPORA, force = false, log = console.log }) {
  const label = sizeLabel(messages);
  const dir = join(out, label);
  const manifestPath = join(dir, 'manifest.json');
  if (!force && existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.seed === seed && manifest.generatorVersion === GENERATOR_VERSION && manifest.messages === messages) {
      log(`${label}: up to date in ${dir} (${(manifest.bytes / 1e6).toFixed(1)} MB, ${manifest.messages} messages; --force regenerates)`);
      return { dir, manifest };
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const master = createRng(seed * 1_000_003 + messages);
  const started = Date.now();
  const stats = Object.fromEntries(MIX.map(([name]) => [name, { sessions: 0, messages: 0, lines: 0, bytes: 0 }]));
  let total = 0;
  let sessionIndex = 0;
  // Weighted round: pick the format furthest behind its share, so small corpora still get the proportions.
  while (total < messages) {
    const [name, , make] = MIX.reduce((best, candidate) =>
      stats[candidate[0]].messages / candidate[1] < stats[best[0]].messages / best[1] ? candidate : best,
    );
    const rng = createRng((seed ^ 0x9e3779b9) + sessionIndex * 7919);
    sessionIndex += 1;
    let target = rng.logInt(50, 400);
    const left = messages - total;
    if (left - target < 50) target = left; // never leave a stub session below the minimum behind
    const startMs = SPAN_START + Math.floor(master.next() * (SPAN_END - SPAN_START));
    const project = PROJECTS[Math.min(PROJECTS.length - 1, Math.floor(Math.pow(master.next(), 1.6) * PROJECTS.length))];
    const session = make(rng, target, startMs, project);
    const text = `${session.lines.join('\n')}\n`;
    const path = join(dir, session.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    const s = stats[name];
    s.sessions += 1;
    s.messages += session.messages;
    s.lines += session.lines.length;
    s.bytes += Buffer.byteLength(text);
    total += session.messages;
  }
  const sum = (key) => Object.values(stats).reduce((acc, s) => acc + s[key], 0);
  const manifest = {
    generatorVersion: GENERATOR_VERSION,
    seed,
    messages: total,
    sessions: sum('sessions'),
    lines: sum('lines'),
    bytes: sum('bytes'),
    vocabulary: VOCAB.size,
    span: [new Date(SPAN_START).toISOString(), new Date(SPAN_END).toISOString()],
    bySource: stats,
  };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`${label}: ${(manifest.bytes / 1e6).toFixed(1)} MB, ${manifest.messages} messages in ${manifest.sessions} sessions (${manifest.lines} lines) → ${dir} [${((Date.now() - started) / 1000).toFixed(1)} s]`);
  for (const [name, s] of Object.entries(stats)) {
    log(`  ${name.padEnd(11)} ${String(s.sessions).padStart(6)} sessions ${String(s.messages).padStart(9)} messages ${(s.bytes / 1e6).toFixed(1).padStart(8)} MB`);
  }
  return { dir, manifest };
}

function main(argv) {
  const sizes = [];
  let seed = 42;
  let out = DEFAULT_CORPORA;
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--seed') seed = Number(argv[++i]);
    else if (arg === '--out') out = resolve(argv[++i]);
    else if (arg === '--force') force = true;
    else if (arg === '-h' || arg === '--help') {
      console.log('usage: node bench/generate-corpus.mjs [10k|100k|1M|<n> ...] [--seed N] [--out DIR] [--force]');
      return 0;
    } else sizes.push(parseSize(arg));
  }
  if (!Number.isInteger(seed)) throw new Error('--seed needs an integer');
  for (const messages of sizes.length > 0 ? sizes : [10_000]) generateCorpus({ messages, seed, out, force });
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(`generate-corpus: ${error.message}`);
    process.exitCode = 2;
  }
}
