import type { Entry } from '../model.js';

/**
 * Keyword extraction for projections (seed 000 §3.2): terms from user and assistant text plus tool targets,
 * stopwords dropped, technical terms (paths, commands, packages, identifiers) kept intact and ranked higher,
 * because recall queries name files and commands far more often than ordinary words.
 */

export type TermKind = 'path' | 'package' | 'command' | 'identifier' | 'compound' | 'word';

/** Technical-ness multiplier per kind. */
const KIND_WEIGHT: Readonly<Record<TermKind, number>> = {
  path: 5,
  package: 4,
  command: 4,
  identifier: 4,
  compound: 3,
  word: 2,
};

export const MAX_KEYWORDS = 30;

const STOPWORDS = new Set(
  `a about above after again against all almost along already also although always am among an and another any
  anybody anyone anything anyway anywhere are aren around as at away back be became because become been before
  being below between both but by can cannot cant could couldn did didn do does doesn doing don done down during
  each either else enough etc even ever every everything few first for from further get gets getting give given
  go goes going gone got had hadn has hasn have haven having he her here hers herself him himself his how however
  i if in into is isn it its itself just last least less let lets like likely made make makes making many may
  maybe me might mine more most much must my myself need needs neither never new next no nobody none nor not
  nothing now of off often on once one only onto or other others otherwise our ours ourselves out over own per
  perhaps please put quite rather re really said same say says see seem seems seen several shall she should
  shouldn since so some somebody someone something sometimes somewhat still such sure take than that the their
  theirs them themselves then there these they thing things this those though through thus to too toward
  under until up upon us use used uses using very via want wants was wasn way ways we well went were weren what
  whatever when where whether which while who whom whose why will with within without won would wouldn yes yet
  you your yours yourself yourselves
  ok okay yeah yep nope hey hi hello thanks thank thx cool great good nice awesome perfect right alright
  hmm hm um uh ah oh wow lol sorry actually basically literally probably definitely certainly totally honestly
  simply pretty kind sort bit lot lots stuff guess think thought know knew look looks looking looked try tried
  trying let's i'm i've i'll i'd you're you've you'll we're we've we'll it's that's there's what's don't doesn't
  didn't can't won't isn't aren't wasn't shouldn't wouldn't couldn't here's
  able again already sounds seems check checked checking help work works working worked keep still time times
  tell told call called ask asked answer want wanted needed now today tomorrow yesterday instead going via
  fine wait start started run ran see saw looks doing done decided confirmed
  http https www com org net html nbsp amp quot lt gt md redacted null undefined true false
  built-in follow-up step-by-step end-to-end up-to-date so-called well-known real-time read-only one-off
  top-level non-empty high-level low-level self-contained long-running e-mail re-run`
    .split(/\s+/)
    .filter(Boolean),
);

/** Short words that are still meaningful technical terms. */
const SHORT_TERMS = new Set(['ci', 'db', 'ui', 'ux', 'ts', 'js', 'pr', 'io', 'vm', 'os', 'gh', 'ai', 'ml', 'qa', 'go', 'k8s']);

/** Command-line tools; those in SUBCOMMAND_TOOLS also yield `tool sub` bigrams (`cargo build`, `git commit`). */
const COMMANDS = new Set(
  `npm npx pnpm yarn bun deno node cargo rustc rustup git gh docker kubectl helm make cmake tsc vitest jest pytest
  python python3 pip pip3 uv poetry go curl wget ssh scp rsync grep rg sed awk jq tar brew apt apt-get wrangler
  vercel netlify terraform ls cat mkdir rm mv cp chmod sudo systemctl psql sqlite3 redis-cli mvn gradle dotnet`
    .split(/\s+/)
    .filter(Boolean),
);
const SUBCOMMAND_TOOLS = new Set(
  'npm npx pnpm yarn bun deno cargo git gh docker kubectl helm go pip pip3 uv poetry brew apt apt-get wrangler vercel terraform mvn gradle dotnet'.split(' '),
);

const FILE_EXTENSIONS = new Set(
  `ts tsx mts cts js jsx mjs cjs json jsonl toml yaml yml md mdx rs py go java kt rb sh bash zsh sql css scss html
  lock txt env cfg ini conf xml c h cc cpp hpp swift vue svelte db sqlite log csv proto gradle zig php cs lua wasm`
    .split(/\s+/)
    .filter(Boolean),
);
const BARE_FILES = new Set(['dockerfile', 'makefile', 'readme', 'license', 'changelog', 'procfile', 'justfile']);

/** Folders where a project's relative path usually begins; used to shorten absolute paths. */
const PATH_ROOTS = new Set(['src', 'lib', 'test', 'tests', 'app', 'apps', 'packages', 'docs', 'bin', 'scripts', 'config', 'crates']);

/** Shorten `/Users/me/proj/src/app.ts` to `src/app.ts`: the user-specific prefix never helps recall. */
function shortenPath(path: string): string {
  const absolute = /^(\/|~\/|[A-Za-z]:[\\/])/.test(path);
  const parts = path.replace(/\\/g, '/').split('/').filter((p) => p && p !== '.' && p !== '..' && p !== '~');
  if (!absolute) return parts.join('/');
  const tail = parts.slice(-4);
  const rootIndex = tail.findIndex((p) => PATH_ROOTS.has(p));
  if (rootIndex >= 0 && rootIndex < tail.length - 1) return tail.slice(rootIndex).join('/');
  // A file directly under an unknown root (`/Users/me/proj/Cargo.toml`) is usually a project-root file: keep its name.
  const base = parts[parts.length - 1] ?? '';
  return base.includes('.') ? base : parts.slice(-2).join('/');
}

/** Classify one raw token, returning the normalized term or null when it is noise. */
export function classifyToken(raw: string): { term: string; kind: TermKind } | null {
  let token = raw.replace(/^(\.\.?\/)+/, '').replace(/[.\-/]+$/, '');
  if (raw.startsWith('-')) return null; // command-line flags
  if (token.length < 2) return SHORT_TERMS.has(token.toLowerCase()) ? { term: token.toLowerCase(), kind: 'word' } : null;
  if (/^v?\d[\d._-]*$/i.test(token)) return null; // numbers, versions, dates
  if (/^[0-9a-f]{7,}$/i.test(token) && /\d/.test(token)) return null; // hashes
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(token)) return null; // uuids
  if (/^@[\w.-]+\/[\w.-]+$/.test(token)) return { term: token.toLowerCase(), kind: 'package' };
  if (token.includes('/')) {
    const short = shortenPath(raw.startsWith('/') || raw.startsWith('~') ? raw.replace(/[.\-/]+$/, '') : token);
    return /\p{L}/u.test(short) && short.length >= 2 ? { term: short, kind: 'path' } : null;
  }
  if (/^\.[A-Za-z][\w.-]*$/.test(token)) return { term: token, kind: 'path' }; // dotfiles: .env, .gitignore
  const lower = token.toLowerCase();
  const ext = /\.([a-z0-9]{1,6})$/i.exec(token)?.[1]?.toLowerCase();
  if (ext && FILE_EXTENSIONS.has(ext) && /^[\w.-]+$/.test(token)) return { term: token, kind: 'path' };
  if (BARE_FILES.has(lower)) return { term: token, kind: 'path' };
  if (token.includes('.')) {
    // Dotted members (`config.patch`) stay; abbreviations (`e.g`, `i.e`) have one-letter parts.
    return token.split('.').every((p) => p.length >= 2 && /^\w+$/.test(p)) ? { term: token, kind: 'identifier' } : null;
  }
  if (COMMANDS.has(lower)) return { term: lower, kind: 'command' };
  if (/^[A-Za-z]\w*$/.test(token) && (/[a-z][A-Z]/.test(token) || (token.includes('_') && /[A-Za-z]{2}/.test(token)))) {
    return { term: token, kind: 'identifier' }; // camelCase, PascalCase with inner caps, snake_case, SCREAMING_CASE
  }
  if (/^[\p{L}\p{N}]+(-[\p{L}\p{N}]+)+$/u.test(token)) {
    if (STOPWORDS.has(lower)) return null;
    return { term: lower, kind: /\d/.test(token) ? 'package' : 'compound' };
  }
  if (!/^\p{L}[\p{L}\p{N}]*$/u.test(token)) return null;
  if (STOPWORDS.has(lower)) return null;
  if (lower.length < 3 && !SHORT_TERMS.has(lower)) return null;
  return { term: lower, kind: 'word' };
}

/** Strip wire noise that would otherwise surface as terms (URLs, HTML entities). */
function stripNoise(text: string): string {
  return text
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/&[a-z]+;/gi, ' ');
}

/**
 * Terms of one text in order. In a command context (a tool target, or an inline code span in prose) a command
 * is followed by its `tool sub` bigram (`cargo build`); prose like "the wrangler command" yields no bigram.
 */
export function extractTextTerms(text: string, commandContext = false): { term: string; kind: TermKind }[] {
  if (commandContext) return extractSegmentTerms(text, true);
  const terms: { term: string; kind: TermKind }[] = [];
  let last = 0;
  // Fenced blocks are code (their info string, e.g. `bash`, is dropped); in prose between them, odd-numbered
  // pieces of a backtick split are inline code spans.
  const addProse = (prose: string): void => {
    prose.split('`').forEach((piece, i) => terms.push(...extractSegmentTerms(piece, i % 2 === 1)));
  };
  for (const match of text.matchAll(/```[^\n]*\n?([\s\S]*?)(?:```|$)/g)) {
    addProse(text.slice(last, match.index));
    terms.push(...extractSegmentTerms(match[1] ?? '', true));
    last = match.index + match[0].length;
  }
  addProse(text.slice(last));
  return terms;
}

function extractSegmentTerms(text: string, allowBigrams: boolean): { term: string; kind: TermKind }[] {
  const raws = stripNoise(text).match(/[\p{L}\p{N}._/@~\\:-]+/gu) ?? [];
  const terms: { term: string; kind: TermKind }[] = [];
  const tokens = raws.flatMap((raw) => (/^[A-Za-z]:[\\/]/.test(raw) ? [raw] : raw.split(':'))).filter(Boolean);
  tokens.forEach((raw, i) => {
    const classified = classifyToken(raw);
    if (!classified) return;
    terms.push(classified);
    const next = tokens[i + 1];
    if (allowBigrams && classified.kind === 'command' && SUBCOMMAND_TOOLS.has(classified.term) && next && /^[a-z][a-z-]{1,20}$/.test(next)) {
      if (!STOPWORDS.has(next)) terms.push({ term: `${classified.term} ${next}`, kind: 'command' });
    }
  });
  return terms;
}

/** Terms an entry contributes: user/assistant prose, and only the target (command or path) of a tool call. */
function collectEntryTerms(entry: Entry): { term: string; kind: TermKind }[] {
  if (entry.role === 'user' || entry.role === 'assistant') return extractTextTerms(entry.text);
  if (entry.role === 'tool') return extractTextTerms(entry.toolTarget ?? '', true);
  return [];
}

/** Unique terms of one entry, sorted; topics use it for co-occurrence. */
export function extractEntryTerms(entry: Entry): string[] {
  return [...new Set(collectEntryTerms(entry).map((t) => t.term))].sort(compareText);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Top keywords, best first. Score = (occurrences capped at 12 + 3 × messages containing it) × kind weight;
 * ties break alphabetically (code-unit order, independent of locale), so output is deterministic.
 */
export function extractKeywords(entries: readonly Entry[], max = MAX_KEYWORDS): string[] {
  const stats = new Map<string, { count: number; spread: number; weight: number }>();
  for (const entry of entries) {
    const seen = new Set<string>();
    for (const { term, kind } of collectEntryTerms(entry)) {
      const stat = stats.get(term) ?? { count: 0, spread: 0, weight: 0 };
      stat.count += 1;
      stat.weight = Math.max(stat.weight, KIND_WEIGHT[kind]);
      if (!seen.has(term)) stat.spread += 1;
      seen.add(term);
      stats.set(term, stat);
    }
  }
  const limit = Math.max(0, Math.min(max, MAX_KEYWORDS));
  return [...stats.entries()]
    .map(([term, s]) => ({ term, score: (Math.min(s.count, 12) + 3 * s.spread) * s.weight }))
    .sort((a, b) => b.score - a.score || compareText(a.term, b.term))
    .slice(0, limit)
    .map((s) => s.term);
}
