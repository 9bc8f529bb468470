import { type Command, Option } from 'commander';
import { type DocsIndexReport, type WritebackResult, formatPack } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl } from '../format.js';
import { printJson } from '../output.js';
import { parseCount } from './numbers.js';

/** `moon context "TASK"`: the context pack for the cwd's namespace; `moon docs index [PATH]`: the documents plane. */
export function registerContext(program: Command, context: CliContext): void {
  program
    .command('context')
    .description('the context pack for a task: planning (Beads), history, long-term memory and documents, within a token budget')
    .argument('<task>', 'what the agent is about to do')
    .option('--budget <tokens>', 'tokens the pack may hold (default memory.context_budget_tokens)')
    .option('--planning <ref>', 'a Beads issue id: the item, its dependencies, ready siblings, acceptance criteria and notes')
    .option('--error <text>', 'an error being faced: history matching it comes first')
    .option('--namespace <id>', "the namespace to pack for (default the working directory's)")
    .option('--all-projects', 'history and documents of every namespace')
    // The former name, kept for scripts written before one name widened every command.
    .addOption(new Option('--all-namespaces').hideHelp())
    .option('--json', 'print {items, budget, used_tokens, omitted} as JSON')
    .action(async (task: string, options: { budget?: string; planning?: string; error?: string; namespace?: string; allProjects?: boolean; allNamespaces?: boolean; json?: boolean }) => {
      const pack = await context.moon().memory.contextPack({
        task,
        ...(options.budget !== undefined ? { budget: parseCount('--budget', options.budget) } : {}),
        planning: options.planning ?? null,
        error: options.error ?? null,
        namespace: options.namespace ?? null,
        allNamespaces: Boolean(options.allProjects) || Boolean(options.allNamespaces),
        cwd: process.cwd(),
      });
      if (options.json) printJson(context.io, pack);
      else context.io.out(formatPack(pack));
    });

  const plan = program.command('plan').description('planning writeback to Beads through the bd CLI (best-effort: a failure is reported, never fatal)');
  const report = (result: WritebackResult, json: boolean | undefined): void => {
    if (json) printJson(context.io, result);
    else context.io.out(`${result.ok ? 'done' : 'not done'}: ${escapeControl(result.detail, { oneLine: true })}`);
  };
  plan
    .command('claim')
    .description('mark a work item in progress, noting the run (session) that took it')
    .argument('<id>', 'the Beads issue id')
    .requiredOption('--session <id>', 'the run: the agent session that claims it')
    .option('--commit <sha...>', 'commits of the run')
    .option('--json', 'print {ok, detail}')
    .action(async (id: string, options: { session: string; commit?: string[]; json?: boolean }) => {
      const writeback = await context.moon().memory.planning(process.cwd());
      report(await writeback.claim(id, { session_id: options.session, message_ids: [], archive_path: null, commits: options.commit ?? [] }), options.json);
    });
  plan
    .command('close')
    .description('close a work item')
    .argument('<id>', 'the Beads issue id')
    .requiredOption('--reason <text>', 'why it is closed')
    .option('--json', 'print {ok, detail}')
    .action(async (id: string, options: { reason: string; json?: boolean }) => {
      report(await (await context.moon().memory.planning(process.cwd())).close(id, options.reason), options.json);
    });
  plan
    .command('follow-up')
    .description('file a follow-up discovered while working on a work item')
    .argument('<from>', 'the Beads issue it was discovered from')
    .argument('<title>', 'the new issue')
    .option('--description <text>', 'its description')
    .option('--json', 'print {ok, detail}')
    .action(async (from: string, title: string, options: { description?: string; json?: boolean }) => {
      report(await (await context.moon().memory.planning(process.cwd())).createFollowUp(from, title, options.description), options.json);
    });

  const docs = program.command('docs').description("the repository's own docs, for context packs");
  docs
    .command('index')
    .description('index README, docs/, ADRs and other markdown/text docs of a repository as doc records (incremental)')
    .argument('[path]', "the repository's folder (default the working directory's repository root)")
    .option('--namespace <id>', "the namespace to index into (default the folder's)")
    .option('--json', 'print the report as JSON')
    .action(async (path: string | undefined, options: { namespace?: string; json?: boolean }) => {
      const report = await context.moon().memory.indexDocs({ ...(path ? { path } : {}), ...(options.namespace ? { namespace: options.namespace } : {}) });
      if (options.json) printJson(context.io, report);
      else context.io.out(formatDocsReport(report));
    });
}

function formatDocsReport(report: DocsIndexReport): string {
  const clean = (text: string): string => escapeControl(text, { oneLine: true });
  return [
    `docs of ${clean(report.root)} into ${clean(report.namespace_id)}: ${report.files} files, ${report.indexed.length} indexed (${report.sections} sections), ${report.unchanged} unchanged, ${report.removed.length} removed`,
    ...report.indexed.map((path) => `  indexed ${clean(path)}`),
    ...report.removed.map((path) => `  removed ${clean(path)}`),
  ].join('\n');
}
