import type { Entry } from '../model.js';

/**
 * Heuristic topic labels (seed 000 §3.2, local distiller mode): keywords are matched against a small lexicon
 * and the best-scoring labels win. A label needs a real cluster behind it — two or more of the session's
 * keywords, or one of its very top keywords. When nothing qualifies there are no topics: an `a / b` pair of
 * keywords (`git / log`, `len / sha`) only repeats the keyword list and reads as a topic it is not.
 */

export const MAX_TOPICS = 5;
/** A label backed by a single keyword needs that keyword ranked this high. */
export const SINGLE_KEYWORD_RANK = 5;

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
  ['agent orchestration', ['agents', 'subagent*', 'teammate*', 'spawn*', 'orchestrat*', 'multi-agent', 'handoff*']],
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

/**
 * Score lexicon labels: each matching keyword adds its rank weight (first keyword = keywords.length). Labels
 * without a cluster (see the module comment) are dropped.
 */
function scoreLabels(keywords: readonly string[]): { label: string; score: number }[] {
  const scored: { label: string; score: number }[] = [];
  const words = keywords.map(splitKeyword);
  for (const [label, triggers] of LEXICON) {
    let score = 0;
    let matches = 0;
    let best = Infinity;
    words.forEach((parts, index) => {
      if (!parts.some((w) => triggers.some((t) => matchesTrigger(w, t)))) return;
      score += keywords.length - index;
      matches += 1;
      best = Math.min(best, index);
    });
    if (matches >= 2 || best < SINGLE_KEYWORD_RANK) scored.push({ label, score });
  }
  return scored.sort((a, b) => b.score - a.score || compareText(a.label, b.label));
}

/**
 * Up to MAX_TOPICS lexicon labels, best first; none when no keyword cluster matches. `entries` is accepted for
 * callers that pass the session, but labels come from the keywords alone so they always agree with them.
 */
export function inferTopics(_entries: readonly Entry[], keywords: readonly string[]): string[] {
  return scoreLabels(keywords)
    .slice(0, MAX_TOPICS)
    .map((s) => s.label);
}
