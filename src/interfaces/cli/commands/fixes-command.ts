import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';
import { parsePositive } from './numbers.js';

interface FixesFlags {
  namespace?: string;
  allProjects?: boolean;
  allNamespaces?: boolean;
  limit?: string;
  json?: boolean;
}

export function registerFixes(program: Command, context: CliContext): void {
  program
    .command('fixes')
    .description('error signatures seen in your sessions and the fixes that worked, each claimed, verified or stale')
    .argument('[query...]', 'a signature, an error text, or words to look for')
    .option('--namespace <ns>', "one namespace (an id like github.com/acme/shop, or a project directory); default: this directory's")
    .option('--all-projects', 'every namespace (each pattern still built from its own namespace only)')
    // The former name, kept for scripts written before one name widened every command.
    .addOption(new Option('--all-namespaces').hideHelp())
    .option('--limit <n>', 'at most this many patterns (default 20)')
    .option('--json', 'print {scope, patterns: [{signature, count, state, evidence: [...]}]} as JSON')
    .action(async (words: string[], flags: FixesFlags) => {
      const query = words.join(' ').trim();
      const result = await context.moon().memory.fixes({
        query: query === '' ? null : query,
        namespace: flags.namespace ?? null,
        allNamespaces: (flags.allProjects ?? false) || (flags.allNamespaces ?? false),
        cwd: process.cwd(),
        limit: flags.limit === undefined ? undefined : parsePositive('--limit', flags.limit),
      });
      if (flags.json) return printJson(context.io, await context.moon().agents.makeSafe(result));
      const clean = (text: string): string => escapeControl(text, { oneLine: true });
      const lines: string[] = [];
      if (result.scope.widened) lines.push('this directory matches no indexed project: showing every namespace (--namespace NS to narrow)');
      else if (result.scope.namespace) lines.push(`namespace ${clean(result.scope.namespace)} (--all-projects to widen)`);
      for (const pattern of result.patterns) {
        lines.push('');
        lines.push(`${pattern.state.toUpperCase()}  ${clean(pattern.signature)}`);
        lines.push(`  seen ${plural(pattern.count, 'time')} in ${plural(pattern.sessions.length, 'session')}, fixed ${plural(pattern.worked, 'time')} (verified)${result.scope.all ? ` · ${clean(pattern.namespace_id)}` : ''}`);
        for (const evidence of pattern.evidence.slice(0, 3)) {
          const files = evidence.files.length > 0 ? ` · changed ${evidence.files.map(clean).join(', ')}` : '';
          const commits = evidence.commits.length > 0 ? ` · ${evidence.commits.map(clean).join(', ')}` : '';
          const why = evidence.stale_reason ? ` · ${clean(evidence.stale_reason)}` : '';
          lines.push(`  - ${evidence.state} in ${clean(evidence.session_id)}${evidence.target ? ` (\`${clean(evidence.target)}\` passed)` : ''}${files}${commits}${why}`);
        }
      }
      if (result.patterns.length === 0) lines.push('no error signatures found');
      context.io.out(lines.join('\n').replace(/^\n/, ''));
    });
}
