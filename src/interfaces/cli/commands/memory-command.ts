import { type Command, Option } from 'commander';
import type { LongTermMemory, NamespaceChoice } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { printJson } from '../output.js';
import { parsePositive } from './numbers.js';

interface WhereFlags {
  namespace?: string;
  allProjects?: boolean;
  allNamespaces?: boolean;
  json?: boolean;
}

const clean = (text: string): string => escapeControl(text, { oneLine: true });

function where(flags: WhereFlags): NamespaceChoice {
  return { namespace: flags.namespace, allNamespaces: flags.allProjects === true || flags.allNamespaces === true, cwd: process.cwd() };
}

/** One line per entry: id, review state, scope, flags, text. Deprecated entries say they are never injected. */
function describe(memory: LongTermMemory): string {
  const flags = [
    memory.review_state === 'deprecated' ? 'deprecated: never injected' : null,
    memory.agent_loaded ? 'agent already loads it' : null,
    memory.version > 1 ? `v${memory.version}` : null,
  ].filter((flag): flag is string => flag !== null);
  return `${memory.id}  [${memory.review_state}] ${memory.scope}${flags.length > 0 ? ` (${flags.join('; ')})` : ''}  ${clean(memory.text)}`;
}

function withWhere(command: Command): Command {
  return command
    .option('--namespace <ns>', "a namespace (default: the working directory's: its git origin, else repository root, else folder)")
    .option('--all-projects', 'every namespace (reads only)')
    // The former name, kept for scripts written before one name widened every command.
    .addOption(new Option('--all-namespaces').hideHelp())
    .option('--json', 'print JSON');
}

export function registerMemory(program: Command, context: CliContext): void {
  const memory = program.command('memory').description('long-term memory: curated conventions, decisions and pitfalls, reviewed before they are injected');
  const api = () => context.moon().memory.longTerm();
  const printList = (items: LongTermMemory[], flags: WhereFlags, empty: string): void => {
    if (flags.json) return printJson(context.io, { memories: items });
    context.io.out(items.length === 0 ? empty : items.map(describe).join('\n'));
  };

  withWhere(memory.command('add').description('add a draft memory (merged into an existing entry when it says the same)').argument('<text>'))
    .option('--scope <scope>', 'project | team | user', 'project')
    .option('--expires <date>', 'an ISO date or date-time after which it is not returned, and `moon gc` removes it')
    .option('--session <ids>', 'provenance: the session(s) it came from (comma-separated)')
    .option('--message <ids>', 'provenance: the message id(s) it came from (comma-separated)')
    .action(async (text: string, flags: WhereFlags & { scope: string; expires?: string; session?: string; message?: string }) => {
      const { parseMemoryExpires: parseExpires, parseMemoryScope: parseScope } = await import('../../../index.js');
      const ids = (value: string | undefined): string[] => (value ?? '').split(',').map((id) => id.trim()).filter((id) => id !== '');
      const result = await (await api()).add({
        ...where(flags),
        text,
        scope: parseScope(flags.scope),
        expiresAtMs: parseExpires(flags.expires),
        sessionIds: ids(flags.session),
        messageIds: ids(flags.message),
      });
      if (flags.json) return printJson(context.io, { ...result.memory, outcome: result.outcome, duplicate: result.duplicate });
      context.io.out(
        result.outcome === 'created'
          ? `added ${result.memory.id} (draft; \`moon memory approve ${result.memory.id}\` to use it in context packs)`
          : `${result.outcome === 'merged' ? 'merged into' : 'already in'} ${result.memory.id} (${result.duplicate} duplicate)`,
      );
    });

  withWhere(memory.command('list').description('list memories, newest first'))
    .option('--state <states>', 'draft,approved,deprecated (comma-separated)')
    .option('--limit <n>', 'at most this many', (value) => parsePositive('--limit', value))
    .action(async (flags: WhereFlags & { state?: string; limit?: number }) => {
      const { parseMemoryStates: parseStates } = await import('../../../index.js');
      printList(await (await api()).list({ ...where(flags), states: parseStates(flags.state), limit: flags.limit }), flags, 'no long-term memories here');
    });

  withWhere(memory.command('search').description('memories holding every word of QUERY (deprecated ones included, flagged)').argument('<query>'))
    .option('--state <states>', 'draft,approved,deprecated (comma-separated)')
    .option('--limit <n>', 'at most this many', (value) => parsePositive('--limit', value))
    .action(async (query: string, flags: WhereFlags & { state?: string; limit?: number }) => {
      const { parseMemoryStates: parseStates } = await import('../../../index.js');
      printList(await (await api()).search({ ...where(flags), query, states: parseStates(flags.state), limit: flags.limit }), flags, 'no memory matches');
    });

  withWhere(memory.command('show').description('one memory with its provenance and previous versions').argument('<id>')).action(async (id: string, flags: WhereFlags) => {
    const shown = await (await api()).show({ ...where(flags), id });
    if (flags.json) return printJson(context.io, shown);
    const lines = [describe(shown.memory), `namespace: ${clean(shown.memory.namespace_id)}`];
    for (const item of shown.memory.provenance) {
      const ids = item.session_ids.length > 0 ? ` sessions ${item.session_ids.map(clean).join(', ')}` : '';
      lines.push(`provenance: ${clean(item.source)}${ids}`);
    }
    for (const version of shown.versions) lines.push(`v${version.version}: ${clean(version.text)}`);
    context.io.out(lines.join('\n'));
  });

  for (const [name, state, said] of [
    ['approve', 'approved', 'approved: context packs may use it'],
    ['deprecate', 'deprecated', 'deprecated: still searchable, never injected'],
  ] as const) {
    withWhere(memory.command(name).description(`mark a memory ${state}`).argument('<id>')).action(async (id: string, flags: WhereFlags) => {
      const changed = await (await api()).setState({ ...where(flags), id, state });
      if (flags.json) return printJson(context.io, changed);
      context.io.out(`${changed.id} ${said}`);
    });
  }

  withWhere(memory.command('edit').description('replace the text (the previous one is kept as a version)').argument('<id>').argument('<text>')).action(
    async (id: string, text: string, flags: WhereFlags) => {
      const changed = await (await api()).edit({ ...where(flags), id, text });
      if (flags.json) return printJson(context.io, changed);
      context.io.out(`${changed.id} is now v${changed.version} (v${changed.version - 1} kept)`);
    },
  );

  withWhere(
    memory
      .command('import')
      .description("import the agents' own memories (CLAUDE.md, AGENTS.md, Claude Code auto-memory, $CODEX_HOME/memories), or PATH")
      .argument('[path]', 'a markdown file or a folder of them'),
  )
    .option('--agent <agent>', 'claude-code | codex (default: both)')
    .action(async (path: string | undefined, flags: WhereFlags & { agent?: string }) => {
      const { parseMemoryAgent: parseAgent } = await import('../../../index.js');
      const report = await (await api()).import({ ...where(flags), agent: parseAgent(flags.agent), path });
      if (flags.json) return printJson(context.io, report);
      const lines = report.files.map(
        (file) => `${clean(file.path)}: ${plural(file.entries, 'entry', 'entries')} (${file.created} new, ${file.merged} merged, ${file.unchanged} already there)`,
      );
      lines.push(report.files.length === 0 ? 'no agent memory files found' : `imported into ${clean(report.namespace_id)} as drafts the agent already loads`);
      context.io.out(lines.join('\n'));
    });

  withWhere(memory.command('propose').description('propose repeated decisions (≥2 sessions) as draft memories; never approves')).action(async (flags: WhereFlags) => {
    const report = await (await api()).propose(where(flags));
    if (flags.json) return printJson(context.io, report);
    const lines = report.proposed.map((item) => `${item.outcome === 'created' ? 'proposed' : item.outcome}: ${describe(item.memory)}`);
    lines.push(`${plural(report.proposed.filter((item) => item.outcome === 'created').length, 'new draft')} in ${clean(report.namespace_id)}`);
    context.io.out(lines.join('\n'));
  });
}

export function registerGc(program: Command, context: CliContext): void {
  program
    .command('gc')
    .description('remove expired records (long-term memories past expires_at; other planes as they add theirs)')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const report = await context.moon().upkeep.gc();
      if (flags.json) return printJson(context.io, report);
      context.io.out([...report.steps.map((step) => `${step.name}: ${plural(step.purged, 'expired record')} removed`)].join('\n'));
    });
}
