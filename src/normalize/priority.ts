import type { Priority } from '../model.js';
import { ANALYSIS_SCAN_CHARS, sliceHead } from '../text/limits.js';

/**
 * Seed 000 §3.5 side-effect priority: actions that change something (writes, edits, patches, mutating commands,
 * config patches) are `high` so recall can favour "when did we change X" over "when did we look at X".
 * Everything else, including unknown tools, is `normal`.
 */

/** Tools that always write. Compared case-insensitively. */
export const WRITE_TOOLS: readonly string[] = [
  'write',
  'edit',
  'multiedit',
  'notebookedit',
  'apply_patch',
  'write_to_file',
  'write_file',
  'create_file',
  'edit_file',
  'str_replace',
  'replace_in_file',
  'insert',
  'delete_file',
  'move_file',
  'rename_file',
];

/** Read-only tools. Listed so a name like `file_search` is never mistaken for a write by the name heuristic. */
export const READ_TOOLS: readonly string[] = [
  'read',
  'read_file',
  'view',
  'glob',
  'grep',
  'ls',
  'list_dir',
  'list_files',
  'cat',
  'rg',
  'find',
  'file_search',
  'codebase_search',
  'search_files',
  'websearch',
  'webfetch',
  'web_search',
  'web_fetch',
  'notebookread',
  'bashoutput',
  // Codex feeds a running process's stdin (most often an empty poll): no project change.
  'write_stdin',
  // Planning tools rewrite a to-do list, not the project: not a modification event.
  'todowrite',
  'todoread',
  'update_plan',
  // Claude Code's task board: bookkeeping about the work, not the work (their names hold "create"/"update").
  'taskcreate',
  'taskupdate',
  'tasklist',
  'taskget',
  'taskoutput',
  'taskstop',
];

/**
 * Tools that hand work to another agent: what the spawned agent does (edits, commits) happens out of this
 * transcript's sight, so the hand-off itself is the event recall must find.
 */
export const SPAWN_TOOLS: readonly string[] = ['agent', 'task', 'spawn_agent', 'spawn_agents', 'dispatch_agent', 'create_agent', 'new_task'];

/** Tools whose side effect depends on the command they run. */
export const SHELL_TOOLS: readonly string[] = [
  'bash',
  'shell',
  'sh',
  'zsh',
  'exec',
  'exec_command',
  'run_command',
  'local_shell',
  'shell_command',
  'run_terminal_cmd',
  'execute_command',
  'run_shell_command',
  'terminal',
];

/** Editor tools with both read (`view`) and write commands: decided by the command named in the call. */
const EDITOR_TOOLS = new Set(['str_replace_editor', 'str_replace_based_edit_tool', 'text_editor']);
const EDITOR_READ = /^\s*(?:command:\s*)?view\b/i;

/** Name words that announce a side effect in an unknown tool (`mcp__github__create_issue`, `deployApp`). */
const MUTATING_NAME_WORDS = new Set([
  'write',
  'edit',
  'delete',
  'remove',
  'create',
  'update',
  'patch',
  'apply',
  'deploy',
  'insert',
  'replace',
  'rename',
  'move',
  'upload',
  'commit',
  'push',
  'install',
  'save',
  'set',
  'spawn',
  'migrate',
]);

/** Config and gateway actions that write (OpenClaw `gateway` with `config.patch`, `config.apply`, restart ...). */
const CONFIG_WRITE = /\b(?:patch|apply|set|update|write|restart|install|reset|delete)\b/i;
/** Tool names whose side effect depends on the action named in the call. */
const ACTION_TOOL_WORDS = new Set(['gateway', 'config', 'settings']);

const writeTools = new Set(WRITE_TOOLS);
const readTools = new Set(READ_TOOLS);
const shellTools = new Set(SHELL_TOOLS);
const spawnTools = new Set(SPAWN_TOOLS);

export function classifyPriority(toolName: string | null, subject: string | null | undefined): Priority {
  const name = (toolName ?? '').trim().toLowerCase();
  // A command's effect is stated in its first lines; a megabyte heredoc body adds nothing but cost.
  const text = sliceHead(subject ?? '', ANALYSIS_SCAN_CHARS);
  if (name === '') return 'normal';
  if (writeTools.has(name) || spawnTools.has(name)) return 'high';
  if (readTools.has(name)) return 'normal';
  if (shellTools.has(name)) return isMutatingCommand(text) ? 'high' : 'normal';
  if (EDITOR_TOOLS.has(name)) return EDITOR_READ.test(text) ? 'normal' : 'high';
  const words = splitNameWords(toolName ?? '');
  if (words.some((word) => MUTATING_NAME_WORDS.has(word))) return 'high';
  if (words.some((word) => ACTION_TOOL_WORDS.has(word))) {
    return CONFIG_WRITE.test(namedAction(text)) ? 'high' : 'normal';
  }
  return 'normal';
}

/**
 * The action a call names: the `action:` argument when the call text lists arguments (`action: config.patch`),
 * else its first line. Only the action is tested, so a `config.get` whose path mentions "update" stays normal.
 */
function namedAction(text: string): string {
  // `[^\S\n\r\u2028\u2029]*`, not `\s*`: a leading `\s*` under /m runs over every blank line below each line start.
  const action = /^[^\S\n\r\u2028\u2029]*action:\s*(\S+)/m.exec(text)?.[1];
  return action ?? (text.trimStart().split('\n', 1)[0] ?? '');
}

/** `mcp__github__createIssue` → [mcp, github, create, issue]. */
function splitNameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

// ---------------------------------------------------------------------------------------------------------
// Shell commands: high when any segment of a pipeline, `&&`/`||`/`;` chain or line mutates.

/** Commands that change files, processes or systems whatever their arguments. */
const MUTATING_COMMANDS = new Set([
  'rm',
  'rmdir',
  'mv',
  'cp',
  'mkdir',
  'touch',
  'chmod',
  'chown',
  'chgrp',
  'ln',
  'truncate',
  'dd',
  'unlink',
  'shred',
  'rsync',
  'install',
  'tee',
  'patch',
  'apply_patch',
  'kill',
  'pkill',
  'killall',
  'unzip',
  'zip',
  'scp',
]);

/** Subcommands that mutate, per tool. A tool absent here is judged by its own rule below or is read-only. */
const MUTATING_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set([
    'commit', 'push', 'checkout', 'switch', 'reset', 'merge', 'rebase', 'cherry-pick', 'revert', 'pull',
    'clone', 'init', 'add', 'rm', 'mv', 'restore', 'clean', 'am', 'apply', 'stash', 'worktree', 'submodule',
    'tag', 'branch', 'config', 'gc', 'prune', 'filter-branch', 'update-ref',
  ]),
  npm: new Set([
    'install', 'i', 'ci', 'add', 'uninstall', 'remove', 'rm', 'un', 'update', 'up', 'upgrade', 'link', 'publish',
    'init', 'version', 'dedupe', 'prune',
  ]),
  pnpm: new Set([
    'install', 'i', 'add', 'remove', 'rm', 'uninstall', 'update', 'up', 'upgrade', 'link', 'publish', 'init', 'prune',
  ]),
  yarn: new Set(['install', 'add', 'remove', 'upgrade', 'up', 'link', 'publish', 'init']),
  bun: new Set(['install', 'i', 'add', 'remove', 'rm', 'update', 'link', 'publish', 'init']),
  pip: new Set(['install', 'uninstall']),
  pip3: new Set(['install', 'uninstall']),
  uv: new Set(['add', 'remove', 'sync', 'pip', 'init', 'lock', 'tool']),
  poetry: new Set(['add', 'remove', 'install', 'update', 'lock', 'init', 'publish']),
  cargo: new Set(['install', 'uninstall', 'add', 'remove', 'publish', 'init', 'new', 'update', 'fix']),
  go: new Set(['install', 'get', 'mod', 'generate']),
  gem: new Set(['install', 'uninstall', 'update']),
  brew: new Set(['install', 'uninstall', 'reinstall', 'upgrade', 'update', 'link', 'unlink', 'tap']),
  apt: new Set(['install', 'remove', 'purge', 'upgrade', 'autoremove', 'full-upgrade']),
  'apt-get': new Set(['install', 'remove', 'purge', 'upgrade', 'autoremove', 'dist-upgrade']),
  dnf: new Set(['install', 'remove', 'upgrade', 'update', 'erase']),
  yum: new Set(['install', 'remove', 'upgrade', 'update', 'erase']),
  apk: new Set(['add', 'del', 'upgrade']),
  pacman: new Set(['-S', '-R', '-Syu', '-U']),
  kubectl: new Set([
    'apply', 'create', 'delete', 'patch', 'replace', 'edit', 'scale', 'rollout', 'set', 'label', 'annotate',
    'expose', 'run', 'drain', 'cordon', 'uncordon', 'taint', 'cp', 'exec',
  ]),
  helm: new Set(['install', 'upgrade', 'uninstall', 'delete', 'rollback']),
  terraform: new Set(['apply', 'destroy', 'import', 'taint', 'untaint', 'init']),
  systemctl: new Set(['start', 'stop', 'restart', 'reload', 'enable', 'disable', 'mask', 'unmask', 'kill']),
  launchctl: new Set(['load', 'unload', 'start', 'stop', 'kickstart', 'bootstrap', 'bootout']),
  gh: new Set(['pr', 'issue', 'release', 'repo', 'secret', 'workflow']),
  openclaw: new Set(['config', 'gateway', 'install', 'update', 'onboard']),
};

/** Command groups whose next word is the action (`gh pr create`, `openclaw config get`, `uv pip install`). */
const COMMAND_GROUPS: Record<string, ReadonlySet<string>> = {
  gh: new Set(['pr', 'issue', 'release', 'repo', 'secret', 'workflow']),
  openclaw: new Set(['config', 'gateway']),
  uv: new Set(['pip', 'tool']),
  go: new Set(['mod']),
};
/** Read-only actions inside a command group. */
const READ_GROUP_ACTIONS = new Set(['freeze', 'check', 'graph', 'why', 'verify', 'tree']);

/** Read-only subcommands of tools that are otherwise treated as mutating. */
const READ_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  docker: new Set([
    'ps', 'images', 'image', 'logs', 'inspect', 'version', 'info', 'stats', 'top', 'events', 'history', 'search',
    'diff', 'port',
  ]),
  'docker-compose': new Set(['ps', 'logs', 'config', 'images', 'top', 'version']),
  podman: new Set(['ps', 'images', 'logs', 'inspect', 'version', 'info', 'stats', 'top']),
};
/** For `gh pr …`-style two-level commands, and openclaw/git sub-actions: second words that only read. */
const READ_ACTIONS = new Set([
  'list', 'ls', 'view', 'show', 'status', 'get', 'diff', 'checks', 'log', 'logs', '--list', '-l', 'describe', 'help',
]);

/** Words that start a command without being it: `sudo rm`, `env A=1 npm i`, `time make`, `xargs rm`. */
const COMMAND_PREFIXES = new Set([
  'sudo', 'doas', 'env', 'time', 'nohup', 'nice', 'command', 'exec', 'xargs', 'stdbuf', 'timeout',
]);
/** Generic deploy/publish subcommands (`npx wrangler deploy`, `npm run deploy`, `fly deploy`). */
const DEPLOY_WORDS = new Set(['deploy', 'publish']);
/** Commands that only move around, print or search: `grep deploy notes.md` and `cd deploy` deploy nothing. */
const TEXT_COMMANDS = new Set([
  'cd', 'pushd', 'echo', 'printf', 'grep', 'egrep', 'rg', 'ag', 'ack', 'cat', 'less', 'more', 'head', 'tail', 'ls',
  'tree', 'stat', 'file', 'du', 'find', 'man', 'which', 'type', 'wc', 'jq', 'git', 'code', 'vim', 'nano',
]);

/**
 * Schema migrations change a database: `prisma migrate dev`, `rails db:migrate`, `knex migrate:latest`,
 * `python manage.py migrate`, `diesel migration run`, `alembic upgrade head`, `pulumi up`-style one-word
 * appliers are listed per tool. Only the first three non-flag arguments are looked at, so a file named
 * `migrate.md` further along a command line does not count.
 */
const MIGRATION_WORD = /^(?:[\w-]+:)?migrat(?:e|ion|ions)(?::[\w-]+)?$/;
const UPGRADE_TOOLS: Record<string, ReadonlySet<string>> = {
  alembic: new Set(['upgrade', 'downgrade', 'stamp']),
  pulumi: new Set(['up', 'destroy']),
  dbmate: new Set(['up', 'down', 'migrate', 'rollback']),
  goose: new Set(['up', 'down', 'redo', 'reset']),
  flyway: new Set(['migrate', 'clean', 'repair']),
};

function migrates(base: string, args: string[]): boolean {
  const words = args.filter((arg) => !arg.startsWith('-')).slice(0, 3);
  if (UPGRADE_TOOLS[base]?.has(words[0] ?? '')) return true;
  return words.some((word) => MIGRATION_WORD.test(word));
}

/** A deploy word in subcommand position: one of the first two non-flag arguments. */
function deploys(args: string[]): boolean {
  return args.filter((arg) => !arg.startsWith('-')).slice(0, 2).some((arg) => DEPLOY_WORDS.has(arg));
}

export function isMutatingCommand(command: string): boolean {
  if (command.trim() === '') return false;
  const script = stripHeredocBodies(command);
  if (nestedScripts(script).some((nested) => isMutatingCommand(nested))) return true;
  const masked = maskQuoted(script);
  if (hasFileRedirection(masked)) return true;
  return splitSegments(masked).some((segment) => isMutatingSegment(segment));
}

/**
 * A heredoc body is data, not commands: `python3 - <<'EOF'` followed by `if x > 3:` must not read as a
 * redirection. The command line that opens it (`cat > notes.md <<EOF`) is kept and still judged.
 */
function stripHeredocBodies(command: string): string {
  if (!command.includes('<<')) return command;
  const kept: string[] = [];
  let delimiters: string[] = [];
  for (const line of command.split('\n')) {
    if (delimiters.length > 0) {
      if (line.trim() === delimiters[0]) delimiters = delimiters.slice(1);
      continue;
    }
    kept.push(line);
    for (const match of line.matchAll(/<<-?[ \t]*(['"]?)([A-Za-z_][\w-]*)\1/g)) delimiters.push(match[2] ?? '');
  }
  return kept.join('\n');
}

/** `bash -lc 'git commit …'`, `sh -c "rm x"`: the quoted script is the real command. */
function nestedScripts(command: string): string[] {
  const scripts: string[] = [];
  const pattern = /\b(?:ba|z|da|k)?sh\s+-[a-z]*c\s+(?:'([^']*)'|"((?:[^"\\]|\\.)*)")/g;
  for (const match of command.matchAll(pattern)) scripts.push(match[1] ?? match[2] ?? '');
  return scripts;
}

/**
 * Blank out quoted strings so `grep "a > b"` and `echo 'x && rm y'` are not read as shell syntax. An unclosed
 * quote is left as written. Scanned by hand: the regex `"(?:[^"\\]|\\.)*"` rescans to the end from every
 * escaped quote of an unclosed string (`"\"\"\"…`), which is quadratic.
 */
function maskQuoted(command: string): string {
  let out = '';
  let from = 0;
  let doubleCloses = true;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index];
    if (char !== "'" && char !== '"') continue;
    // Once a double-quoted string fails to close, every later one fails the same way (same escape pairing).
    const close = char === "'" ? command.indexOf("'", index + 1) : doubleCloses ? findDoubleQuoteEnd(command, index + 1) : -1;
    if (close < 0) {
      if (char === '"') doubleCloses = false;
      continue;
    }
    out += `${command.slice(from, index)}${char}${char}`;
    from = close + 1;
    index = close;
  }
  return out + command.slice(from);
}

/** Index of the `"` closing a double-quoted string whose body starts at `from`, or -1; `\x` is one escaped pair. */
function findDoubleQuoteEnd(command: string, from: number): number {
  for (let index = from; index < command.length; index += 1) {
    const char = command[index];
    if (char === '\\') index += 1;
    else if (char === '"') return index;
  }
  return -1;
}

/** `>`/`>>` into a file writes it; `2>&1`, `>/dev/null` and `&>/dev/null` do not. */
function hasFileRedirection(masked: string): boolean {
  // `(?:(?<!\d)\d+)?` reads a file-descriptor number only from its first digit; a plain `\d*` retries a long
  // run of digits from every digit, which is quadratic.
  const stripped = masked.replace(/(?:(?<!\d)\d+)?>&\d*-?|&?(?:(?<!\d)\d+)?>>?\s*\/dev\/(?:null|stdout|stderr|tty)\b/g, ' ');
  return /(?:^|[^-=<>])>>?(?!=)/.test(stripped.replace(/=>|->|<>/g, ' '));
}

function splitSegments(masked: string): string[] {
  return masked
    .split(/&&|\|\||[;|\n&()`]/)
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '');
}

function isMutatingSegment(segment: string): boolean {
  const words = commandWords(segment);
  const [command, ...args] = words;
  if (command === undefined) return false;
  const base = command.replace(/^.*\//, '');
  if (MUTATING_COMMANDS.has(base)) return true;
  if (!TEXT_COMMANDS.has(base) && (deploys(args) || migrates(base, args))) return true;
  switch (base) {
    case 'sed':
    case 'perl':
      return args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith('--in-place'));
    case 'awk':
    case 'gawk':
      return args.some((arg, index) => arg === '-i' && args[index + 1] === 'inplace');
    case 'find':
      return args.includes('-delete') || execsMutation(args);
    case 'tar': {
      // The first argument is the mode: `tar -tzf` and `tar tf` list, everything else creates or extracts.
      const lists = /^-?[A-Za-z]*t[A-Za-z]*$/.test(args[0] ?? '') || args.includes('--list');
      return !lists;
    }
    case 'curl':
      return args.some((arg, index) => isCurlMutation(arg, args[index + 1]));
    case 'python':
    case 'python3':
      return args[0] === '-m' && args[1] === 'pip' && ['install', 'uninstall'].includes(args[2] ?? '');
    case 'psql':
      // `psql -f schema.sql` runs a script (schemas, migrations, seeds); `psql -c 'select …'` is judged as a read.
      return args.some((arg) => arg === '-f' || arg.startsWith('--file'));
    case 'vercel':
      // Bare `vercel` (and `vercel --prod`) deploys the current folder.
      return firstNonFlag(args) === undefined || firstNonFlag(args) === 'deploy';
    case 'docker':
    case 'docker-compose':
    case 'podman':
      return isMutatingContainerCommand(base, args);
    case 'git':
      return isMutatingGit(args);
    default:
      return isMutatingSubcommand(base, args);
  }
}

/** Command words without env assignments and wrappers: `sudo FOO=1 nice -n 5 rm x` → [rm, x]. */
function commandWords(segment: string): string[] {
  const words = segment.split(/\s+/).filter((word) => word !== '');
  let index = 0;
  while (index < words.length) {
    const word = words[index] ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) index++;
    else if (COMMAND_PREFIXES.has(word)) {
      index++;
      // Wrapper flags (`xargs -0 -I {}`, `timeout 30`, `nice -n 5`) come before the wrapped command.
      while (index < words.length && /^(?:-|\{\}$|\d+[smhd]?$)/.test(words[index] ?? '')) {
        const flag = words[index] ?? '';
        index += flag === '-I' || flag === '-n' || flag === '-u' ? 2 : 1;
      }
    } else break;
  }
  return words.slice(index);
}

function execsMutation(args: string[]): boolean {
  const at = args.findIndex((arg) => arg === '-exec' || arg === '-execdir' || arg === '-ok');
  return at >= 0 && isMutatingSegment(args.slice(at + 1).join(' '));
}

function isCurlMutation(arg: string, next: string | undefined): boolean {
  if (arg === '-X' || arg === '--request') return /^(?:POST|PUT|PATCH|DELETE)$/i.test(next ?? '');
  if (/^-X(?:POST|PUT|PATCH|DELETE)$/i.test(arg)) return true;
  const sendsOrWrites = /^(?:-d|--data(?:-raw|-binary|-urlencode)?|-F|--form|-T|--upload-file|-o|--output|-O|--remote-name)$/;
  return sendsOrWrites.test(arg);
}

function isMutatingContainerCommand(base: string, args: string[]): boolean {
  const sub = firstNonFlag(args);
  if (sub === undefined) return false;
  // `docker compose ps` reads; `docker compose up` does not.
  const action = sub === 'compose' || sub === 'container' ? firstNonFlag(args.slice(args.indexOf(sub) + 1)) : sub;
  const reads = READ_SUBCOMMANDS[sub === 'compose' ? 'docker-compose' : base];
  return action !== undefined && !(reads?.has(action) ?? false) && !READ_ACTIONS.has(action);
}

function isMutatingGit(args: string[]): boolean {
  // Skip global options: `git -C repo --no-pager commit`.
  let index = 0;
  while (index < args.length && (args[index] ?? '').startsWith('-')) {
    const option = args[index] ?? '';
    index += option === '-C' || option === '-c' ? 2 : 1;
  }
  const sub = args[index];
  if (sub === undefined || !MUTATING_SUBCOMMANDS.git?.has(sub)) return false;
  const rest = args.slice(index + 1);
  switch (sub) {
    case 'stash':
      return !['list', 'show'].includes(rest[0] ?? '');
    case 'branch':
    case 'tag': {
      // Listing forms: no arguments, or list/filter flags (`git branch -a`, `git tag -l 'v1*'`).
      const listing = /^(?:-l|--list|--show-current|--contains|--merged|--no-merged|-r|--remotes)$/;
      if (rest.some((arg) => listing.test(arg))) return false;
      const writing = /^-(?:d|D|m|M|c|C|f|s)$|^--(?:delete|move|copy|force|annotate|sign)/;
      return rest.some((arg) => !arg.startsWith('-') || writing.test(arg));
    }
    case 'config': {
      // `git config user.name X` writes, `git config --get user.name` and `git config user.name` read.
      if (rest.some((arg) => /^--(?:unset|add|replace-all|rename-section|remove-section)/.test(arg))) return true;
      const reads = rest.some((arg) => /^(?:--get|--get-all|--get-regexp|--list|-l)$/.test(arg));
      return !reads && rest.filter((arg) => !arg.startsWith('-')).length >= 2;
    }
    case 'worktree':
    case 'submodule':
      return !READ_ACTIONS.has(rest[0] ?? 'list');
    default:
      return true;
  }
}

function isMutatingSubcommand(base: string, args: string[]): boolean {
  const subcommands = MUTATING_SUBCOMMANDS[base];
  if (!subcommands) return false;
  // `yarn` alone installs.
  if (base === 'yarn' && firstNonFlag(args) === undefined) return true;
  if (base === 'pacman') return args.some((arg) => subcommands.has(arg));
  const sub = firstNonFlag(args);
  if (sub === undefined || !subcommands.has(sub)) return false;
  if (COMMAND_GROUPS[base]?.has(sub)) {
    const action = firstNonFlag(args.slice(args.indexOf(sub) + 1));
    return action !== undefined && !READ_ACTIONS.has(action) && !READ_GROUP_ACTIONS.has(action);
  }
  return true;
}

function firstNonFlag(args: string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'));
}
