import { type Command, Option } from 'commander';
import type { DigestLine, DigestScope, RunDigest } from '../../../index.js';
import { MoonError } from '../../../errors.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';

interface DigestFlags {
  all?: boolean;
  force?: boolean;
  search?: string;
  list?: boolean;
  namespace?: string;
  allProjects?: boolean;
  allNamespaces?: boolean;
  limit?: string;
  json?: boolean;
}

export function registerDigest(program: Command, context: CliContext): void {
  program
    .command('digest')
    .description('run digests: what a finished session set out to do, how it ended, what it changed and hit — each line linked to its evidence')
    .argument('[session]', 'the session to digest (an id or a unique prefix)')
    .option('--all', 'digest every session lacking a current digest')
    .option('--force', 'digest again even when the current digest is of the same content')
    .option('--search <query>', 'search the digests (any of the words, stemmed)')
    .option('--list', 'list digests, newest first')
    .option('--namespace <ns>', 'with --search/--list: this namespace (default: the working directory’s)')
    .option('--all-projects', 'with --search/--list: every project (namespace)')
    // The former name, kept for scripts written before one name widened every command.
    .addOption(new Option('--all-namespaces').hideHelp())
    .option('--limit <n>', 'with --search/--list: at most this many (default 10 / 20)')
    .option('--json', 'print JSON')
    .action(async (session: string | undefined, flags: DigestFlags) => {
      const moon = context.moon();
      const limit = flags.limit === undefined ? undefined : Number(flags.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new MoonError('bad_usage', '--limit must be a positive whole number');
      const allNamespaces = flags.allProjects === true || flags.allNamespaces === true;
      if (flags.namespace && allNamespaces) throw new MoonError('bad_usage', '--namespace and --all-projects cannot be used together');
      const scope = { namespace: flags.namespace, allNamespaces, cwd: process.cwd(), limit };
      if (flags.search !== undefined || flags.list) {
        if (session || flags.all) throw new MoonError('bad_usage', '--search/--list take no session and no --all');
        if (flags.search !== undefined) {
          const result = await moon.memory.searchDigests({ ...scope, query: flags.search });
          const safe = { scope: result.scope, hits: await moon.agents.makeSafe(result.hits) };
          if (flags.json) return printJson(context.io, safe);
          const lines = safe.hits.map((hit) => renderDigest(hit.digest, true));
          lines.push(`${plural(safe.hits.length, 'digest')} ${describeScope(safe.scope)}`);
          return context.io.out(lines.join('\n\n'));
        }
        const listed = await moon.memory.listDigests(scope);
        const safe = { scope: listed.scope, digests: await moon.agents.makeSafe(listed.digests) };
        if (flags.json) return printJson(context.io, safe);
        const lines = safe.digests.map((digest) => renderDigest(digest, true));
        lines.push(`${plural(safe.digests.length, 'digest')} ${describeScope(safe.scope)}`);
        return context.io.out(lines.join('\n\n'));
      }
      if (!session && !flags.all) throw new MoonError('bad_usage', 'name a session, or pass --all (or --search QUERY, --list)', { hint: 'moon digest SESSION' });
      if (session && flags.all) throw new MoonError('bad_usage', 'a session or --all, not both');
      const report = await moon.memory.digestSession({ sessionId: session, all: flags.all, force: flags.force });
      if (flags.json) return printJson(context.io, { ...report, digests: await moon.agents.makeSafe(report.digests) });
      const out: string[] = [];
      for (const row of report.digests) {
        if (session) out.push(renderDigest(row.digest, false));
        const note = row.fallback ? ` (fell back from ${row.fallback})` : '';
        out.push(`${escapeControl(row.session_id, { oneLine: true })}: ${row.result}, by ${row.produced_by}${escapeControl(note, { oneLine: true })}`);
      }
      for (const failed of report.failed) out.push(`${escapeControl(failed.session_id, { oneLine: true })}: failed — ${escapeControl(failed.reason, { oneLine: true })}`);
      if (flags.all) out.push(`${plural(report.digests.filter((row) => row.result !== 'unchanged').length, 'digest')} written`);
      context.io.out(out.join('\n'));
    });
}

function describeScope(scope: DigestScope): string {
  const clean = (text: string) => escapeControl(text, { oneLine: true });
  switch (scope.reason) {
    case 'named':
      return `in ${clean(scope.namespace ?? '')}`;
    case 'all':
      return 'in every namespace';
    case 'cwd':
      return `in ${clean(scope.namespace ?? '')} (this directory's namespace; --all-projects widens)`;
    default:
      return 'in every namespace (this directory matches no digested project)';
  }
}

function renderDigest(digest: RunDigest, brief: boolean): string {
  const clean = (text: string) => escapeControl(text, { oneLine: true });
  const cite = (line: DigestLine): string => {
    const refs = [...line.message_ids.map((id) => `#${id}`), ...line.commits.map((sha) => `commit ${sha}`), ...line.prs];
    return `${clean(line.text)}${refs.length > 0 ? `  [${clean(refs.slice(0, 6).join(', '))}${refs.length > 6 ? ', …' : ''}]` : ''}`;
  };
  const { body } = digest;
  const out = [`${clean(digest.session_id)} — ${clean(digest.title)} (${clean(digest.namespace_id)}, by ${clean(digest.produced_by)})`];
  if (body.intent) out.push(`  intent: ${cite(body.intent)}`);
  out.push(`  outcome (${body.outcome.status}): ${cite(body.outcome)}`);
  if (brief) {
    for (const gotcha of body.gotchas.slice(0, 2)) out.push(`  gotcha: ${cite(gotcha)}`);
    return out.join('\n');
  }
  const section = (title: string, lines: DigestLine[]) => {
    if (lines.length === 0) return;
    out.push(`  ${title}:`);
    for (const line of lines) out.push(`    - ${cite(line)}`);
  };
  section('changes', body.changes);
  section('decisions', body.decisions);
  section('gotchas', body.gotchas);
  section('next steps', body.next_steps);
  if (digest.run_ref?.archive_path) out.push(`  archive: ${clean(digest.run_ref.archive_path)}`);
  return out.join('\n');
}
