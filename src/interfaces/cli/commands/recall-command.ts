import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { MoonError, describeError, isMoonError } from '../../../errors.js';
import type { RecallResult } from '../../../model.js';
import type { Explanation, Moon } from '../../../index.js';
import { type RecallOptions, type RecallScopeOutput, describeRecallScope, parseRecallRequest, parseRecallRequestLine, scopeRecallOptions, toRecallOutput } from '../../../index.js';
import type { CliContext } from '../context.js';
import { toFlagError } from '../flag-errors.js';
import { describeNames, escapeControl, formatLocalStamp, plural } from '../format.js';
import { printJson } from '../output.js';
import { SOURCE_NAMES, isValidTimezone } from '../../../index.js';
import { collect } from './index-command.js';

interface RecallFlags {
  limit?: string;
  group?: string;
  require: string[];
  exclude: string[];
  project: string[];
  session: string[];
  source: string[];
  role: string[];
  tool: string[];
  priority: string[];
  marker: string[];
  since?: string;
  until?: string;
  excludeSession: string[];
  perSession?: string;
  now?: string;
  tz?: string;
  strategy?: string;
  explain?: boolean;
  json?: boolean;
  batch?: string;
  allProjects?: boolean;
}

export function registerRecall(program: Command, context: CliContext): void {
  program
    .command('recall')
    .description('find earlier conversations, decisions and tool actions')
    .argument('[query...]', 'what to look for')
    .option('--limit <n>', 'sessions (or messages with --group message) to return')
    .option('--group <mode>', 'session (default) or message')
    .option('--require <word>', 'every match must contain this (repeatable)', collect, [])
    .option('--exclude <word>', 'no match may contain this (repeatable)', collect, [])
    .option('--project <name>', 'only this project (name or cwd substring, repeatable)', collect, [])
    .option('--session <id>', 'only this session (repeatable)', collect, [])
    .option('--source <name>', `only ${describeNames(SOURCE_NAMES)} (repeatable)`, collect, [])
    .option('--role <role>', 'only user, assistant, tool or system (repeatable)', collect, [])
    .option('--tool <name>', 'only this tool (repeatable)', collect, [])
    .option('--priority <priority>', 'only high (tool calls that change things) or normal (repeatable)', collect, [])
    .option('--marker <type>', 'only messages carrying an @/ marker of this type, e.g. decision or bug (repeatable, or a comma list)', collect, [])
    .option('--since <when>', 'only at or after this time: ISO date/time, or words like yesterday, "last week", "3 days ago"')
    .option('--until <when>', 'only before this time: ISO date/time, or words like yesterday (the start of that day)')
    .option('--exclude-session <id>', 'never return this session (repeatable)', collect, [])
    .option('--per-session <n>', 'messages shown per session')
    .option('--now <iso>', 'reference time for relative expressions')
    .option('--tz <zone>', 'time zone for times without an offset (IANA name or abbreviation)')
    .option('--strategy <name>', 'hybrid (fused signals, default) or bm25 (plain baseline)')
    .option('--explain', "show each signal's contribution per match")
    .option('--batch <file>', 'read one JSON query per line (- for stdin), write one RecallResult per line')
    .option('--all-projects', 'search every project, not only the one the current directory belongs to')
    .option('--json', 'print the RecallResult as JSON')
    .action(async (words: string[], flags: RecallFlags) => {
      const moon = context.moon();
      if (flags.batch) {
        const text = flags.batch === '-' ? await context.io.readStdin() : readBatchFile(flags.batch);
        let bad = 0;
        for (const [index, line] of splitBatchLines(text).entries()) {
          try {
            if (!line.trim()) throw new MoonError('bad_input', 'blank line (expected a JSON query object)');
            const options = parseRecallRequestLine(line);
            context.io.out(JSON.stringify(await safeMatches(moon, await moon.history.recall(options))));
          } catch (error) {
            if (!isMoonError(error) || error.exitCode !== 2) throw error;
            bad += 1;
            const where = `${flags.batch === '-' ? 'stdin' : flags.batch}:${index + 1}`;
            context.io.err(`error: ${escapeControl(`${where}: ${error.message}`, { oneLine: true })}`);
            context.io.out(JSON.stringify({ query: '', matches: [], generated_at_epoch_secs: 0, error: `${where}: ${error.message}` }));
          }
        }
        if (bad > 0) context.setExitCode(2);
        return;
      }
      const query = words.join(' ').trim();
      if (!query) throw new MoonError('bad_usage', 'recall needs a query (or --batch FILE)');
      const { result, scope } = await recallInScope(moon, toRecallOptions(query, flags), flags).catch((error: unknown) => {
        throw toFlagError(error);
      });
      if (flags.json) printJson(context.io, toRecallOutput(await safeMatches(moon, result), scope));
      else {
        for (const note of result.notes ?? []) context.io.err(`note: ${note}`);
        context.io.out(formatRecall(result, { explain: flags.explain, zone: displayZone(flags.tz, context.config().distill.residential_timezone) }));
      }
    });
}

/** Input lines as the user sees them: the newline ending the last line does not start another one. */
export function splitBatchLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Show times in the zone named by --tz when it is an IANA zone; abbreviations only shift query times. */
function displayZone(tz: string | undefined, residential: string): string {
  return tz && isValidTimezone(tz) ? tz : residential;
}

function readBatchFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new MoonError('bad_input', `--batch: cannot read ${path} (${describeError(error)})`);
  }
}

/** The flags as a recall request (search/request.ts), so the command line is checked by the same schema as --batch. */
function toRecallOptions(query: string, flags: RecallFlags): RecallOptions {
  return asFlagErrors(() =>
    parseRecallRequest({
      query,
      limit: flags.limit,
      group: flags.group,
      require: flags.require,
      exclude: flags.exclude,
      project: flags.project,
      session: flags.session,
      source: flags.source,
      role: flags.role,
      tool: flags.tool,
      priority: flags.priority,
      marker: flags.marker,
      since: flags.since,
      until: flags.until,
      exclude_session: flags.excludeSession,
      per_session: flags.perSession,
      now: flags.now,
      tz: flags.tz,
      strategy: flags.strategy,
      explain: flags.explain,
    }),
  );
}

/** The library names request fields (`per_session: …`); on the command line the same mistake names the flag. */
function asFlagErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw toFlagError(error);
  }
}

/**
 * Human output in seed 002's shape: one block per match, then a total. Times are shown in `zone` (the
 * residential zone unless --tz names another), and every field that comes from a transcript is escaped.
 */
export function formatRecall(result: RecallResult, options: { explain?: boolean; zone: string }): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  if (result.matches.length === 0) return `No matches for "${clean(result.query)}".`;
  const blocks = result.matches.map((match) => {
    const meta = match.metadata;
    const first = meta.timestamps[0];
    const header = [
      clean(meta.project ?? meta.cwd ?? '-'),
      clean(meta.session_id),
      plural(meta.match_count, 'match', 'matches'),
      first ? formatLocalStamp(Date.parse(first), options.zone) : '(no time)',
      `score ${match.score}`,
      ...(meta.time_window === 'outside' ? ['outside the time asked for'] : []),
    ].join(' | ');
    const more = meta.match_count - meta.message_ids.length;
    const explained = options.explain ? formatExplain(meta.message_ids, meta.explain) : [];
    return [
      header,
      escapeControl(match.snippet),
      ...explained,
      ...(more > 0 ? [`... and ${plural(more, 'more match', 'more matches')}`] : []),
      `→ ${clean(match.archive_path)}`,
    ].join('\n');
  });
  const sessions = new Set(result.matches.map((match) => match.metadata.session_id)).size;
  const total =
    sessions === result.matches.length
      ? `Found matches in ${plural(sessions, 'session')}`
      : `Found ${plural(result.matches.length, 'match', 'matches')} in ${plural(sessions, 'session')}`;
  return `${blocks.join('\n\n')}\n\n${total}`;
}

/**
 * One line per matched message. Signals and boosts have a known shape; any other field an explanation
 * carries (e.g. where each term matched) is printed generically, so new fields show up without a change here.
 */
function formatExplain(ids: string[], explain: unknown): string[] {
  if (!Array.isArray(explain)) return [];
  return explain.flatMap((raw: unknown, index) => {
    if (!raw || typeof raw !== 'object') return [];
    const item = raw as Partial<Explanation> & Record<string, unknown>;
    const signals = Object.entries(item.signals ?? {})
      .map(([name, value]) => `${name} #${value.rank} (+${value.contribution})`)
      .join(', ');
    const boosts = (item.boosts ?? []).map((boost) => `${boost.name} ×${boost.factor}`).join(', ');
    const lines = [`  explain ${escapeControl(ids[index] ?? '?', { oneLine: true })}: ${signals}${boosts ? `; ${boosts}` : ''} = ${item.score}`];
    if (Array.isArray(item.terms) && item.terms.length > 0) lines.push(`    terms: ${escapeControl(describeTerms(item.terms), { oneLine: true })}`);
    if (Array.isArray(item.session_fields) && item.session_fields.length > 0) {
      const fields = item.session_fields.map((match) => `${match.field} (${match.terms.join(', ')})`).join('; ');
      lines.push(`    session fields: ${escapeControl(fields, { oneLine: true })}`);
    }
    const places = describePlaces(item);
    if (places.length > 0) lines.push(`    matched in: ${places.join(', ')}`);
    for (const [key, value] of Object.entries(item)) {
      if (KNOWN_EXPLAIN_KEYS.has(key) || value === undefined) continue;
      lines.push(`    ${escapeControl(key, { oneLine: true })}: ${escapeControl(describeValue(value), { oneLine: true })}`);
    }
    return lines;
  });
}

const KNOWN_EXPLAIN_KEYS = new Set(['signals', 'boosts', 'fused', 'score', 'terms', 'session_fields']);

/** Where the match was found, message and session alike: `message text, tool result, session title, session files`. */
function describePlaces(item: Partial<Explanation>): string[] {
  const places = new Set<string>();
  for (const match of item.terms ?? []) {
    for (const field of match.fields) places.add(MESSAGE_PLACES[field] ?? `message ${field}`);
    if (match.fields.length === 0 && (match.neighbours?.length ?? 0) > 0) places.add('neighbouring messages');
  }
  for (const match of item.session_fields ?? []) places.add(`session ${match.field}`);
  return [...places];
}

const MESSAGE_PLACES: Record<string, string> = {
  text: 'message text',
  result: 'tool result',
  tool: 'tool name',
  target: 'tool target',
  identifiers: 'identifier parts',
};

/** `stripe in text, result; webhook in neighbour m-12; djinn not matched`. */
function describeTerms(terms: NonNullable<Explanation['terms']>): string {
  return terms.map(describeTerm).join('; ');
}

function describeTerm(match: NonNullable<Explanation['terms']>[number]): string {
  if (match.fields.length > 0) return `${match.term} in ${match.fields.join(', ')}`;
  if (match.neighbours && match.neighbours.length > 0) return `${match.term} in neighbour${match.neighbours.length > 1 ? 's' : ''} ${match.neighbours.join(', ')}`;
  return `${match.term} not matched`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) return value.join(', ');
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value)
      .map(([key, inner]) => `${key}=${typeof inner === 'string' ? inner : JSON.stringify(inner)}`)
      .join('; ');
  }
  return JSON.stringify(value);
}

/**
 * Run inside a project's folder, recall reads that project's sessions (issue: isolation) and says so; a folder no
 * indexed session ran in leaves every project in reach. Naming sessions or projects is the caller's own choice.
 */
async function recallInScope(moon: Moon, options: RecallOptions, flags: RecallFlags): Promise<{ result: RecallResult; scope: RecallScopeOutput }> {
  const named = (options.session?.length ?? 0) > 0;
  if (flags.allProjects || named || (options.project?.length ?? 0) > 0) {
    return { result: await moon.history.recall(options), scope: describeRecallScope(null, named) };
  }
  const scope = await moon.history.resolveScope({ cwd: process.cwd() });
  const scoped = scopeRecallOptions(options, scope);
  if (scope.kind === 'all' || scope.everything) return { result: await moon.history.recall(options), scope: describeRecallScope(scope) };
  const note = `scoped to the ${scope.sessionIds.length} session${scope.sessionIds.length === 1 ? '' : 's'} of ${scope.roots.join(', ')} (the current directory's project); --all-projects searches every project`;
  const result = scoped ? await moon.history.recall(scoped) : { query: options.query, matches: [], generated_at_epoch_secs: Math.floor(moon.clock() / 1000) };
  return { result: { ...result, notes: [...(result.notes ?? []), note] }, scope: describeRecallScope(scope) };
}

/** What a match carries (titles, paths, snippets) made safe to hand an agent; the query is the caller's own. */
async function safeMatches(moon: Moon, result: RecallResult): Promise<RecallResult> {
  return { ...result, matches: await moon.agents.makeSafe(result.matches) };
}
