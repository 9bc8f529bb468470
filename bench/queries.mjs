// The recall benchmarks' fixed query set and the baseline's jq filter, shared by bench/ingest-recall.mjs and
// bench/rg-tsv.mjs.

/**
 * The fixed query set: single words (common and rare), multi-word, identifiers, paths, commands, a ticket id and a
 * term that never occurs. Every term comes from the generator's vocabulary, so hit counts grow with the corpus.
 */
export const QUERIES = [
  { query: 'error', kind: 'common word' },
  { query: 'test', kind: 'common word' },
  { query: 'config', kind: 'common word' },
  { query: 'deploy', kind: 'common word' },
  { query: 'wrangler', kind: 'technical term' },
  { query: 'postgres', kind: 'technical term' },
  { query: 'kubernetes', kind: 'technical term' },
  { query: 'webhook', kind: 'technical term' },
  { query: 'flaky test', kind: 'multi-word' },
  { query: 'database migration', kind: 'multi-word' },
  { query: 'exponential backoff', kind: 'multi-word' },
  { query: 'race condition', kind: 'multi-word' },
  { query: 'memory leak', kind: 'multi-word' },
  { query: 'deploy to production', kind: 'multi-word' },
  { query: 'connection pool timeout', kind: 'multi-word' },
  { query: 'cache invalidation ttl', kind: 'multi-word' },
  { query: 'parseConfig', kind: 'identifier' },
  { query: 'handleWebhook', kind: 'identifier' },
  { query: 'fetch_payment', kind: 'identifier' },
  { query: 'STRIPE_SECRET_KEY', kind: 'identifier' },
  { query: 'src/lib/payments.ts', kind: 'path' },
  { query: 'docker-compose.yml', kind: 'path' },
  { query: 'test/invoice.test.ts', kind: 'path' },
  { query: 'npm run build', kind: 'command' },
  { query: 'git rebase', kind: 'command' },
  { query: 'kubectl rollout status', kind: 'command' },
  { query: 'idempotency', kind: 'rare word' },
  { query: 'flamegraph', kind: 'rare word' },
  { query: 'zstd', kind: 'rare word' },
  { query: 'split-brain', kind: 'rare word' },
  { query: 'PAY-1234', kind: 'ticket id' },
  { query: 'quokkaflux', kind: 'absent' },
  // Questions as people ask them: common frame words around a few content words (the case a score cap lost).
  { query: "I'm going back to our previous chat about the flaky test. Can you remind me how we fixed the connection pool timeout?", kind: 'natural question' },
  { query: 'What did we decide about the database migration before the deploy to production last time?', kind: 'natural question' },
  { query: 'Can you remind me why handleWebhook kept failing when STRIPE_SECRET_KEY was missing?', kind: 'natural question' },
  { query: 'How many times did we run into the race condition in the cache invalidation code, and what was the fix?', kind: 'natural question' },
];

/** One query of each kind, for the baseline on large corpora. */
export const BASELINE_SUBSET = ['error', 'flaky test', 'parseConfig', 'src/lib/payments.ts', 'idempotency', 'quokkaflux'];

/** Message text of every record shape of the three formats, as `id \t timestamp \t kind \t text` (seed 002 TSV). */
export const JQ_FILTER = [
  'select(.message != null or ((.payload.type? // "") | test("^(message|function_call|function_call_output|custom_tool_call|custom_tool_call_output)$")))',
  '| [ (.sessionId // .payload.call_id // .id // ""),',
  '    (.timestamp // ""),',
  '    ((.type // "") + "/" + ((.message.role // .payload.role // .payload.type // "") | tostring)),',
  '    ([.message.content?, .payload.content?, .payload.arguments?, .payload.input?, .payload.output?]',
  '       | map(select(. != null) | if type == "string" then . else ([.. | strings] | join(" ")) end)',
  '       | join(" ") | gsub("[\\t\\n\\r]+"; " ")) ]',
  '| @tsv',
].join(' ');
