import type { Command } from 'commander';
import type { DocsIndexReport } from '../../../pack/documents.js';
import { formatPack } from '../../../pack/format.js';
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
    .option('--all-namespaces', 'history and documents of every namespace')
    .option('--json', 'print {items, budget, used_tokens, omitted} as JSON')
    .action(async (task: string, options: { budget?: string; planning?: string; error?: string; namespace?: string; allNamespaces?: boolean; json?: boolean }) => {
      const pack = await context.moon().contextPack({
        task,
        ...(options.budget !== undefined ? { budget: parseCount('--budget', options.budget) } : {}),
        planning: options.planning ?? null,
        error: options.error ?? null,
        namespace: options.namespace ?? null,
        allNamespaces: Boolean(options.allNamespaces),
        cwd: process.cwd(),
      });
      if (options.json) printJson(context.io, pack);
      else context.io.out(formatPack(pack));
    });

  const docs = program.command('docs').description("the repository's own docs, for context packs");
  docs
    .command('index')
    .description('index README, docs/, ADRs and other markdown/text docs of a repository as doc records (incremental)')
    .argument('[path]', "the repository's folder (default the working directory's repository root)")
    .option('--namespace <id>', "the namespace to index into (default the folder's)")
    .option('--json', 'print the report as JSON')
    .action(async (path: string | undefined, options: { namespace?: string; json?: boolean }) => {
      const report = await context.moon().indexDocs({ ...(path ? { path } : {}), ...(options.namespace ? { namespace: options.namespace } : {}) });
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
