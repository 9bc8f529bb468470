import type { Entry } from '../model.js';
import { ANALYSIS_SCAN_CHARS, sliceHead } from '../text/limits.js';

/**
 * Keyword extraction for projections (seed 000 §3.2): terms from user and assistant text plus tool targets,
 * stopwords dropped, technical terms (paths, commands, packages, identifiers) kept intact and ranked higher,
 * because recall queries name files and commands far more often than ordinary words.
 */

export type TermKind = 'path' | 'package' | 'command' | 'identifier' | 'compound' | 'word';

/** Technical-ness multiplier per kind. */
export const KIND_WEIGHT: Readonly<Record<TermKind, number>> = {
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

/**
 * Words that are present in almost every session and name nothing: counting (one, twice, third), shell verbs
 * and builtins said alone (`echo`, `cd`, `grep`: the command that matters is the `git log` bigram or the file),
 * lorem ipsum from fixtures and UI mock-ups, and metasyntactic filler (foo, bar, abc, xyz).
 */
const NUMBER_WORDS = `zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
  seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred hundreds thousand
  thousands million millions billion first second third fourth fifth sixth seventh eighth ninth tenth once twice
  thrice half dozen couple single double triple`;
const SHELL_WORDS = `echo cd ls cat grep egrep fgrep rg sed awk head tail rm rmdir mv cp mkdir touch export source sudo
  chmod chown ln pwd which whoami xargs find wc sort uniq cut tr tee printf env unset eval exec kill pkill ps less
  clear exit nohup then fi elif esac done`;
const LOREM_WORDS = `lorem ipsum dolor sit amet consectetur adipiscing elit sed eiusmod tempor incididunt labore dolore
  magna aliqua enim minim veniam quis nostrud exercitation ullamco laboris nisi aliquip commodo consequat duis aute
  irure reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat proident
  sunt culpa qui officia deserunt mollit anim laborum perspiciatis unde omnis iste natus voluptatem accusantium
  doloremque laudantium totam aperiam eaque ipsa quae illo inventore veritatis quasi architecto beatae vitae dicta
  explicabo nemo ipsam quia voluptas aspernatur aut odit fugit consequuntur magni dolores eos ratione sequi
  nesciunt neque porro quisquam dolorem adipisci numquam eius modi tempora incidunt magnam quaerat est non
  aliquam rem eu`;
const FILLER_WORDS = 'foo bar baz qux quux corge grault garply waldo fred plugh xyzzy thud abc abcd abcde abcdef xyz asdf qwerty hoge fuga';
const NOISE_WORDS = new Set(`${NUMBER_WORDS} ${SHELL_WORDS} ${LOREM_WORDS} ${FILLER_WORDS}`.split(/\s+/).filter(Boolean));

/** `aaa`, `xxxx`: one letter repeated is a placeholder, not a term. */
function isRepeatedLetter(word: string): boolean {
  return word.length > 1 && [...word].every((ch) => ch === word[0]);
}

/** Paths to devices and process files (`/dev/null`, `2>/dev/null`): shell plumbing, never a subject. */
const DEVICE_PATH = /^(?:dev|proc|sys)(?:\/|$)/;

/** Short words that are still meaningful technical terms. */
const SHORT_TERMS = new Set(['ci', 'db', 'ui', 'ux', 'ts', 'js', 'pr', 'io', 'vm', 'os', 'gh', 'ai', 'ml', 'qa', 'go', 'k8s']);

/** Command-line tools; those in SUBCOMMAND_TOOLS also yield `tool sub` bigrams (`cargo build`, `git commit`). */
const COMMANDS = new Set(
  `npm npx pnpm yarn bun deno node cargo rustc rustup git gh docker kubectl helm make cmake tsc vitest jest pytest
  python python3 pip pip3 uv poetry go curl wget ssh scp rsync jq tar brew apt apt-get wrangler
  vercel netlify terraform systemctl psql sqlite3 redis-cli mvn gradle dotnet`
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
/** Extensions that are also whole dotfile names: `.env` is a file, `.md` is not. */
const DOTFILE_NAMES = new Set(['env', 'conf', 'lock']);
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
  let token = trimPathEnd(raw.replace(/^(\.\.?\/)+/, ''));
  if (raw.startsWith('-')) return null; // command-line flags
  if (token.length < 2) return SHORT_TERMS.has(token.toLowerCase()) ? { term: token.toLowerCase(), kind: 'word' } : null;
  if (/^v?\d[\d._-]*$/i.test(token)) return null; // numbers, versions, dates
  if (/^\d/.test(token) && countDigits(token) * 2 > token.length) return null; // timestamps, sizes: 2025-06-14T11, 404s
  if (/^redacted/i.test(token)) return null; // redaction placeholders and their parts
  if (/^[0-9a-f]{7,}$/i.test(token) && /\d/.test(token)) return null; // hashes
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(token)) return null; // uuids
  if (/^@[\w.-]+\/[\w.-]+$/.test(token)) return { term: token.toLowerCase(), kind: 'package' };
  if (token.includes('/')) {
    const short = shortenPath(raw.startsWith('/') || raw.startsWith('~') ? trimPathEnd(raw) : token);
    if (DEVICE_PATH.test(short)) return null;
    return /\p{L}/u.test(short) && short.length >= 2 ? { term: short, kind: 'path' } : null;
  }
  if (/^\.[A-Za-z][\w.-]*$/.test(token)) {
    // Dotfiles (.env, .gitignore) name files; a bare extension (.md, .ts) names only a kind of file.
    const bare = token.slice(1).toLowerCase();
    return FILE_EXTENSIONS.has(bare) && !DOTFILE_NAMES.has(bare) ? null : { term: token, kind: 'path' };
  }
  const lower = token.toLowerCase();
  const ext = /\.([a-z0-9]{1,6})$/i.exec(token)?.[1]?.toLowerCase();
  if (ext && FILE_EXTENSIONS.has(ext) && /^[\w.-]+$/.test(token)) return { term: token, kind: 'path' };
  if (BARE_FILES.has(lower)) return { term: token, kind: 'path' };
  if (token.includes('.')) {
    // Dotted members (`config.patch`) stay; abbreviations (`e.g`, `i.e`) have one-letter parts.
    return token.split('.').every((p) => p.length >= 2 && /^\w+$/.test(p)) ? { term: token, kind: 'identifier' } : null;
  }
  if (COMMANDS.has(lower)) return { term: lower, kind: 'command' };
  if (NOISE_WORDS.has(lower)) return null;
  if (/^[A-Za-z]\w*$/.test(token) && (/[a-z][A-Z]/.test(token) || (token.includes('_') && /[A-Za-z]{2}/.test(token)))) {
    return { term: token, kind: 'identifier' }; // camelCase, PascalCase with inner caps, snake_case, SCREAMING_CASE
  }
  if (/^[\p{L}\p{N}]+(-[\p{L}\p{N}]+)+$/u.test(token)) {
    if (STOPWORDS.has(lower)) return null;
    return { term: lower, kind: /\d/.test(token) ? 'package' : 'compound' };
  }
  if (!/^\p{L}[\p{L}\p{N}]*$/u.test(token)) return null;
  if (STOPWORDS.has(lower) || NOISE_WORDS.has(lower) || isRepeatedLetter(lower)) return null;
  if (lower.length < 3 && !SHORT_TERMS.has(lower)) return null;
  return { term: lower, kind: 'word' };
}

/**
 * Drop trailing `.`, `-` and `/`. By hand: `/[.\-/]+$/` retries its run from every position, so a token of
 * dots that does not end in one costs the square of its length.
 */
function trimPathEnd(token: string): string {
  let end = token.length;
  while (end > 0 && isPathEndChar(token.charCodeAt(end - 1))) end -= 1;
  return end === token.length ? token : token.slice(0, end);
}

function isPathEndChar(code: number): boolean {
  return code === 46 || code === 45 || code === 47;
}

function countDigits(token: string): number {
  let digits = 0;
  for (const ch of token) if (ch >= '0' && ch <= '9') digits += 1;
  return digits;
}

/**
 * Strip wire noise that would otherwise surface as terms: URLs, HTML entities, and redaction placeholders
 * (`[REDACTED:github-token]`, scrubbed fixtures' `[REDACTED_OUTPUT len=136 sha=b8890189]`) whose parts are
 * the same in every redacted session.
 */
function stripNoise(text: string): string {
  return text
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/&[a-z]+;/gi, ' ')
    .replace(/\[REDACTED[^\]\n]{0,80}\]/gi, ' ');
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
  // Appended one by one: `push(...terms)` of a long message's terms overflows the call stack.
  const append = (more: readonly { term: string; kind: TermKind }[]): void => {
    for (const term of more) terms.push(term);
  };
  const addProse = (prose: string): void => {
    prose.split('`').forEach((piece, i) => append(extractSegmentTerms(piece, i % 2 === 1)));
  };
  for (const match of text.matchAll(/```[^\n]*\n?([\s\S]*?)(?:```|$)/g)) {
    addProse(text.slice(last, match.index));
    append(extractSegmentTerms(match[1] ?? '', true));
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

/**
 * Terms an entry contributes: user and assistant prose, recaps, and only the target (command or path) of a tool
 * call. Reasoning is left out: the model thinking aloud names every option it weighed, not what the session
 * was about. Only the first ANALYSIS_SCAN_CHARS of each are read: scores count messages as much as occurrences,
 * so the rest of a pasted megabyte would not change which terms win.
 */
function collectEntryTerms(entry: Entry): { term: string; kind: TermKind }[] {
  if (entry.kind === 'reasoning') return [];
  if (entry.role === 'user' || entry.role === 'assistant' || entry.kind === 'recap') {
    return extractTextTerms(sliceHead(entry.text, ANALYSIS_SCAN_CHARS));
  }
  if (entry.role === 'tool') return extractTextTerms(sliceHead(entry.toolTarget ?? '', ANALYSIS_SCAN_CHARS), true);
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
 * How many sessions of the whole index hold a term, so a session's keywords can be the terms that set it apart
 * (`wrangler`, `src/cart.ts`) rather than the ones every session shares (`git`, `test`). The SQLite index
 * implements it from the per-session term sets `listSessionTerms` gives.
 */
export interface TermCorpus {
  /** Sessions in the index. */
  sessionCount: number;
  /** Sessions whose term set holds `term` (as listSessionTerms spells it). */
  countSessionsWith(term: string): number;
}

/** Terms a session records for the corpus; large enough that any term that could rank as a keyword is in it. */
export const MAX_SESSION_TERMS = 200;
/** Terms re-ranked against the corpus: the in-session best, so a session costs at most this many lookups. */
const CORPUS_CANDIDATES = 120;

/** A term of a session with its in-session score. */
export interface RankedTerm {
  term: string;
  score: number;
}

/**
 * A session's terms by in-session score — (occurrences capped at 12 + 3 × messages containing it) × kind
 * weight — best first, at most `max`. Computed once per session and handed to `listSessionTerms` and
 * `extractKeywords`, so a projection does not analyse the session's text twice.
 */
export function rankSessionTerms(entries: readonly Entry[], max = MAX_SESSION_TERMS): RankedTerm[] {
  return scoreSessionTerms(entries).slice(0, Math.max(0, max));
}

function scoreSessionTerms(entries: readonly Entry[]): RankedTerm[] {
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
  return [...stats.entries()]
    .map(([term, s]) => ({ term, score: (Math.min(s.count, 12) + 3 * s.spread) * s.weight }))
    .sort((a, b) => b.score - a.score || compareText(a.term, b.term));
}

/**
 * A session's candidate terms, best first by in-session score, at most `max`. The index stores them per session
 * so TermCorpus can count in how many sessions a term occurs.
 */
export function listSessionTerms(entries: readonly Entry[], max = MAX_SESSION_TERMS): string[] {
  return rankSessionTerms(entries, max).map((s) => s.term);
}

/**
 * Inverse session frequency, smoothed: a term in every session still weighs 1, one in no other session weighs
 * 1 + ln(N + 1). The counts are clamped so an index that has not yet recorded this session stays consistent.
 */
function weighDistinctiveness(corpus: TermCorpus, term: string): number {
  const sessions = Math.max(0, Math.floor(corpus.sessionCount));
  const holding = Math.min(sessions, Math.max(0, Math.floor(corpus.countSessionsWith(term))));
  return 1 + Math.log((sessions + 1) / (holding + 1));
}

/**
 * Top keywords, best first. Without a corpus: the in-session score alone, ties alphabetical (code-unit order,
 * independent of locale), so a single-file render is deterministic. With a corpus of more than one session:
 * the in-session score × how distinctive the term is across the index (tf × idf), over the best
 * CORPUS_CANDIDATES in-session terms.
 */
export function extractKeywords(entries: readonly Entry[], max = MAX_KEYWORDS, corpus?: TermCorpus, ranked?: readonly RankedTerm[]): string[] {
  const limit = Math.max(0, Math.min(max, MAX_KEYWORDS));
  // A ranking of MAX_SESSION_TERMS (≥ CORPUS_CANDIDATES, ≥ MAX_KEYWORDS) holds every term that can be chosen.
  const scored = ranked ?? scoreSessionTerms(entries);
  if (!corpus || corpus.sessionCount <= 1) return scored.slice(0, limit).map((s) => s.term);
  return scored
    .slice(0, CORPUS_CANDIDATES)
    .map(({ term, score }) => ({ term, score: score * weighDistinctiveness(corpus, term) }))
    .sort((a, b) => b.score - a.score || compareText(a.term, b.term))
    .slice(0, limit)
    .map((s) => s.term);
}
