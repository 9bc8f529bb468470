import { type Command, Option } from 'commander';
import { MoonError } from '../../../errors.js';
import type { CliContext } from '../context.js';
import { escapeControl, formatLocalStamp } from '../format.js';
import { printJson } from '../output.js';
import { parsePositive } from './numbers.js';

interface DecisionsFlags {
  namespace?: string;
  allProjects?: boolean;
  allNamespaces?: boolean;
  state?: string[];
  limit?: string;
  json?: boolean;
}

const STATES = ['claimed', 'verified', 'stale'] as const;

export function registerDecisions(program: Command, context: CliContext): void {
  program
    .command('decisions')
    .description('choices stated in your sessions, each followed to its outcome: claimed, verified (landed or tested) or stale (reverted, or its files changed)')
    .argument('[query...]', 'words every decision shown must contain')
    .option('--state <state...>', 'only these states: claimed, verified, stale')
    .option('--namespace <ns>', "one namespace (an id like github.com/acme/shop, or a project directory); default: this directory's")
    .option('--all-projects', 'every namespace')
    // The former name, kept for scripts written before one name widened every command.
    .addOption(new Option('--all-namespaces').hideHelp())
    .option('--limit <n>', 'at most this many decisions (default 20)')
    .option('--json', 'print {scope, decisions: [{text, state, session_id, message_id, files, commits, verified_by, stale_reason, …}]} as JSON')
    .action(async (words: string[], flags: DecisionsFlags) => {
      const states = (flags.state ?? []).flatMap((value) => value.split(',')).map((value) => value.trim());
      const bad = states.find((state) => !(STATES as readonly string[]).includes(state));
      if (bad !== undefined) throw new MoonError('bad_usage', `--state: "${bad}" is not one of ${STATES.join(', ')}`);
      const query = words.join(' ').trim();
      const moon = context.moon();
      const result = await moon.memory.decisions({
        query: query === '' ? null : query,
        states: states.length > 0 ? (states as (typeof STATES)[number][]) : undefined,
        namespace: flags.namespace ?? null,
        allNamespaces: (flags.allProjects ?? false) || (flags.allNamespaces ?? false),
        cwd: process.cwd(),
        limit: flags.limit === undefined ? undefined : parsePositive('--limit', flags.limit),
      });
      if (flags.json) return printJson(context.io, await moon.agents.makeSafe(result));
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      const lines: string[] = [];
      if (result.scope.widened) lines.push('this directory matches no indexed project: showing every namespace (--namespace NS to narrow)');
      else if (result.scope.namespace) lines.push(`namespace ${clean(result.scope.namespace)} (--all-projects to widen)`);
      for (const decision of result.decisions) {
        const when = decision.ts === null ? '' : ` · ${formatLocalStamp(decision.ts, moon.config.distill.residential_timezone)}`;
        lines.push('');
        lines.push(`${decision.state.toUpperCase()}  ${clean(decision.text)}`);
        const how = decision.verified_by
          ? ` · ${decision.verified_by.how === 'commit_landed' ? 'landed' : 'a check passed'} in ${clean(decision.verified_by.session_id)}`
          : '';
        const files = decision.files.length > 0 ? ` · changed ${decision.files.slice(0, 4).map(clean).join(', ')}` : '';
        const commits = decision.commits.length > 0 ? ` · ${decision.commits.map(clean).join(', ')}` : '';
        const why = decision.stale_reason ? ` · ${clean(decision.stale_reason)}` : '';
        lines.push(`  session ${clean(decision.session_id)}${when}${how}${files}${commits}${why}`);
      }
      if (result.decisions.length === 0) lines.push('no decisions found');
      context.io.out(lines.join('\n').replace(/^\n/, ''));
    });
}
