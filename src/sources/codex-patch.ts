import { isObject } from './json-value.js';
import { isApplyPatch, listChangedPaths, parseApplyPatch, renderFileChanges } from './patch-text.js';

/**
 * Codex edits files with `apply_patch`, written three ways: a `custom_tool_call` whose input is the patch, a
 * `function_call` with `{"input": patch}`, or a shell command (`apply_patch <<'EOF' … EOF` in `exec_command`,
 * `["apply_patch", patch]` argv in `shell`). All become the same searchable diff.
 */
export interface PatchCall {
  text: string;
  target: string | null;
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const TARGET_LIMIT = 300;

/** The rendered patch of a call, or null when the call is not an apply_patch (or its body says nothing). */
export function describePatchCall(name: string, input: unknown): PatchCall | null {
  const body = findPatchBody(name, input);
  if (body === null) return null;
  const changes = parseApplyPatch(body);
  if (changes.length === 0) return null;
  const first = listChangedPaths(changes)[0] ?? null;
  return { text: renderFileChanges(changes), target: first === null ? null : first.slice(0, TARGET_LIMIT) };
}

function findPatchBody(name: string, input: unknown): string | null {
  const args = parseArgs(input);
  if (name === 'apply_patch') {
    if (typeof args === 'string') return isApplyPatch(args) ? args : null;
    if (isObject(args) && typeof args.input === 'string') return args.input;
    if (isObject(args) && typeof args.patch === 'string') return args.patch;
    return null;
  }
  if (!isObject(args)) return null;
  const command = args.command ?? args.cmd;
  if (Array.isArray(command)) return findInArgv(command);
  return typeof command === 'string' ? findInScript(command) : null;
}

/** `["apply_patch", patch]`, or a shell running a script (`["bash", "-lc", "apply_patch <<'EOF' …"]`). */
function findInArgv(argv: unknown[]): string | null {
  if (!argv.every((part) => typeof part === 'string')) return null;
  const parts = argv as string[];
  const program = parts[0] ?? '';
  if ((program === 'apply_patch' || program.endsWith('/apply_patch')) && parts.length >= 2) {
    return isApplyPatch(parts[1]!) ? parts[1]! : null;
  }
  const script = parts.at(-1);
  return parts.length >= 2 && script !== undefined ? findInScript(script) : null;
}

/** A heredoc: the body runs from `*** Begin Patch` to `*** End Patch`, after an `apply_patch` in the script. */
function findInScript(script: string): string | null {
  const begin = script.indexOf(BEGIN);
  if (begin < 0) return null;
  const command = script.lastIndexOf('apply_patch', begin);
  if (command < 0) return null;
  const end = script.indexOf(END, begin);
  return end < 0 ? script.slice(begin) : script.slice(begin, end + END.length);
}

function parseArgs(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const trimmed = input.trimStart();
  if (!trimmed.startsWith('{')) return input;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return input;
  }
}
