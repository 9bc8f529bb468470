import type { Entry } from '../model.js';
import { extractEntryTerms } from './keywords.js';

/**
 * Heuristic topic labels (seed 000 §3.2, local distiller mode): keywords are matched against a small lexicon
 * and the best-scoring labels win. When fewer than two labels match, the most co-occurring keyword pairs fill in.
 */

export const MIN_TOPICS = 2;
export const MAX_TOPICS = 5;

/** Label → trigger terms. A trailing `*` matches any word starting with the stem (`deploy*` → deployment). */
const LEXICON: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['deployment', ['deploy*', 'release*', 'wrangler', 'cloudflare', 'vercel', 'netlify', 'heroku', 'docker', 'dockerfile', 'kubernetes', 'kubectl', 'k8s', 'helm', 'production', 'staging', 'ci', 'lambda', 'terraform']],
  ['testing', ['test', 'tests', 'testing', 'vitest', 'jest', 'mocha', 'pytest', 'spec', 'specs', 'coverage', 'assert*', 'fixture*', 'golden', 'mock*', 'e2e', 'playwright', 'cypress']],
  ['build configuration', ['build*', 'tsconfig', 'webpack', 'vite', 'rollup', 'esbuild', 'babel', 'compil*', 'tsc', 'makefile', 'cmake', 'cargo', 'bundl*', 'toml']],
  ['environment setup', ['env', 'environment', 'dotenv', 'variables', 'setup', 'configuration', 'settings']],
  ['database', ['database*', 'db', 'sql', 'sqlite*', 'postgres*', 'psql', 'mysql', 'mongo*', 'redis', 'schema*', 'migration*', 'query', 'queries', 'fts5', 'orm', 'prisma', 'drizzle', 'knex']],
  ['authentication', ['auth*', 'login', 'logout', 'oauth*', 'jwt', 'password*', 'credential*', 'sso', 'saml', 'permission*']],
  ['version control', ['git', 'commit*', 'branch*', 'merge*', 'rebase', 'push', 'pull', 'checkout', 'stash', 'diff', 'github', 'gitlab', 'pr', 'gh']],
  ['debugging', ['debug*', 'bug', 'bugs', 'error*', 'exception*', 'stack', 'traceback', 'crash*', 'fix', 'fixed', 'fixes', 'failing', 'failure*', 'broken', 'regression*']],
  ['documentation', ['doc', 'docs', 'documentation', 'readme*', 'changelog', 'guide', 'tutorial', 'jsdoc', 'docstring*', 'comments']],
  ['dependencies', ['dependenc*', 'package', 'packages', 'npm', 'pnpm', 'yarn', 'pip', 'install*', 'upgrade*', 'lockfile', 'node_modules', 'semver', 'crate', 'crates']],
  ['performance', ['perf', 'performance', 'latency', 'slow*', 'optimi*', 'benchmark*', 'bench', 'profil*', 'cache*', 'throughput', 'memory', 'cpu']],
  ['refactoring', ['refactor*', 'rename*', 'cleanup', 'restructur*', 'simplif*', 'reorganiz*', 'dedup*']],
  ['UI', ['ui', 'ux', 'css', 'scss', 'html', 'react', 'component*', 'layout', 'button*', 'frontend', 'tailwind', 'svelte', 'vue', 'jsx', 'tsx', 'modal']],
  ['API', ['api', 'apis', 'endpoint*', 'graphql', 'rest', 'webhook*', 'route*']],
  ['security', ['secur*', 'vulnerab*', 'redact*', 'secret*', 'encrypt*', 'cve', 'xss', 'csrf', 'sanitiz*']],
  ['command-line interface', ['cli', 'argv', 'commander', 'terminal', 'subcommand*']],
];

/** A keyword's words: the whole term plus its path/package/identifier parts (`vitest.config.ts` → vitest, config, ts). */
function splitKeyword(keyword: string): string[] {
  const lower = keyword.toLowerCase();
  return [lower, ...lower.split(/[\s/._@-]+/).filter(Boolean)];
}

function matchesTrigger(word: string, trigger: string): boolean {
  return trigger.endsWith('*') ? word.startsWith(trigger.slice(0, -1)) : word === trigger;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Score lexicon labels: each matching keyword adds its rank weight (first keyword = keywords.length). */
function scoreLabels(keywords: readonly string[]): { label: string; score: number }[] {
  const scored: { label: string; score: number }[] = [];
  for (const [label, triggers] of LEXICON) {
    let score = 0;
    keywords.forEach((keyword, index) => {
      const words = splitKeyword(keyword);
      if (words.some((w) => triggers.some((t) => matchesTrigger(w, t)))) score += keywords.length - index;
    });
    if (score > 0) scored.push({ label, score });
  }
  return scored.sort((a, b) => b.score - a.score || compareText(a.label, b.label));
}

/** Keyword pairs among the top ten that appear together in the most entries, as `a / b` labels. */
function pairKeywords(entries: readonly Entry[], keywords: readonly string[]): string[] {
  const top = keywords.slice(0, 10);
  const termSets = entries.map((entry) => new Set(extractEntryTerms(entry)));
  const pairs: { label: string; count: number; rank: number }[] = [];
  top.forEach((a, i) => {
    top.slice(i + 1).forEach((b, offset) => {
      const count = termSets.filter((set) => set.has(a) && set.has(b)).length;
      if (count > 0) pairs.push({ label: `${a} / ${b}`, count, rank: i + i + 1 + offset });
    });
  });
  return pairs
    .sort((x, y) => y.count - x.count || x.rank - y.rank || compareText(x.label, y.label))
    .map((p) => p.label);
}

/** 2–5 topic labels when the session has enough keywords; fewer only when there is nothing to pair. */
export function inferTopics(entries: readonly Entry[], keywords: readonly string[]): string[] {
  const topics = scoreLabels(keywords)
    .slice(0, MAX_TOPICS)
    .map((s) => s.label);
  if (topics.length >= MIN_TOPICS) return topics;
  for (const pair of pairKeywords(entries, keywords)) {
    if (topics.length >= MIN_TOPICS) break;
    topics.push(pair);
  }
  return topics;
}
