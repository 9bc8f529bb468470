import {
  describeReplacement,
  describeWrite,
  type FileChange,
  mergeFileChanges,
  renderFileChanges,
} from './patch-text.js';
import { renderReadable } from './readable-json.js';

/**
 * Readable forms of tool calls and tool outputs, shared by every adapter: the text a person would want to find
 * later (`npm test`, `src/app.ts`), not the JSON envelope around it.
 */

export interface ToolCallDescription {
  /** Readable call text: the command for shell tools, the path plus short arguments for file tools. */
  text: string;
  /** The command or path the tool acted on, or null when the call names neither. */
  target: string | null;
}

const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'exec',
  'exec_command',
  'local_shell',
  'run_command',
  'run_terminal_cmd',
  'shell_command',
  'execute_command',
  'terminal',
]);
const COMMAND_KEYS = ['command', 'cmd', 'commands', 'script'];
const PATH_KEYS = ['file_path', 'path', 'filePath', 'notebook_path', 'target_file', 'file', 'filename', 'dir_path'];
const TARGET_KEYS = ['url', 'pattern', 'query', 'q'];
/** Bound for one argument value next to a path: enough to recognise an edit, not a whole file body. */
const FILE_ARG_LIMIT = 200;
/** Bound for one argument value of an unknown tool. */
const ARG_LIMIT = 500;
const TARGET_LIMIT = 300;
/** Bounds for an object-shaped tool output rendered as lines: outputs are kept far longer than arguments. */
const OUTPUT_VALUE_LIMIT = 20_000;
const OUTPUT_LIMIT = 100_000;
const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;

export function describeToolCall(name: string, input: unknown): ToolCallDescription {
  const args = parseToolInput(input);
  if (typeof args === 'string') return describeRawInput(name, args);
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    const text = args === null || args === undefined ? '' : renderValue(args, ARG_LIMIT);
    return { text: text || name, target: null };
  }
  const record = args as Record<string, unknown>;

  const commandKey = COMMAND_KEYS.find((key) => record[key] !== undefined && record[key] !== null);
  if (commandKey && (SHELL_TOOLS.has(name.toLowerCase()) || !findPathKey(record))) {
    const command = renderCommand(record[commandKey]);
    if (command) return { text: command, target: boundTarget(command) };
  }

  const pathKey = findPathKey(record);
  const fileChange = pathKey ? describeFileChange(name, String(record[pathKey]), record) : null;
  if (fileChange) return fileChange;
  if (pathKey) {
    const path = String(record[pathKey]);
    const rest = renderArgs(record, [pathKey], FILE_ARG_LIMIT);
    return { text: rest ? `${path}\n${rest}` : path, target: boundTarget(path) };
  }

  const targetKey = TARGET_KEYS.find((key) => typeof record[key] === 'string' && record[key] !== '');
  const text = renderArgs(record, [], ARG_LIMIT);
  return {
    text: text || name,
    target: targetKey ? boundTarget(String(record[targetKey])) : null,
  };
}

/** Tool inputs arrive as objects (Claude Code, OpenClaw) or as JSON strings (Codex `arguments`). */
function parseToolInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const trimmed = input.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return input;
    }
  }
  return input;
}

/** A free-form input (Codex `apply_patch` takes a raw patch): name the files it touches. */
function describeRawInput(name: string, raw: string): ToolCallDescription {
  const files = [...raw.matchAll(PATCH_FILE)].map((match) => match[0].slice(4).trim());
  if (files.length > 0) {
    const first = raw.match(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/m)?.[1]?.trim() ?? null;
    return { text: files.join('\n'), target: first ? boundTarget(first) : null };
  }
  const text = raw.trim();
  if (SHELL_TOOLS.has(name.toLowerCase()) && text) return { text, target: boundTarget(text) };
  return { text: text ? truncate(text, ARG_LIMIT * 4) : name, target: null };
}

/** Tools that write a whole file from a `content` argument; edits are recognised by their arguments instead. */
const WRITE_TOOLS = new Set(['write', 'create', 'create_file', 'write_file']);
const OLD_TEXT_KEYS = ['old_string', 'oldText', 'old_str', 'old_text'];
const NEW_TEXT_KEYS = ['new_string', 'newText', 'new_str', 'new_text'];

/**
 * Edits and writes read as the diff they make (`Update File: src/a.ts`, `- old`, `+ new`), so the code written
 * is found later by the identifiers it introduced: Claude Code `Edit`/`MultiEdit`/`Write`/`NotebookEdit`, OpenClaw
 * `edit`/`write`. Null when the call is not a file change.
 */
function describeFileChange(name: string, path: string, record: Record<string, unknown>): ToolCallDescription | null {
  const changes: FileChange[] = [];
  if (Array.isArray(record.edits)) {
    for (const edit of record.edits) {
      const change = isRecord(edit) ? describeEdit(path, edit) : null;
      if (change) changes.push(change);
    }
  } else {
    const edit = describeEdit(path, record);
    if (edit) changes.push(edit);
    else if (typeof record.new_source === 'string') {
      // NotebookEdit replaces or inserts one cell; the old cell is not in the call.
      changes.push(describeReplacement(path, '', record.edit_mode === 'delete' ? '' : record.new_source));
    } else if (WRITE_TOOLS.has(name.toLowerCase()) && typeof record.content === 'string') {
      changes.push(describeWrite(path, record.content));
    }
  }
  if (changes.length === 0) return null;
  return { text: renderFileChanges(mergeFileChanges(changes)), target: boundTarget(path) };
}

function describeEdit(path: string, record: Record<string, unknown>): FileChange | null {
  const before = findString(record, OLD_TEXT_KEYS);
  const after = findString(record, NEW_TEXT_KEYS);
  return before === null || after === null ? null : describeReplacement(path, before, after);
}

function findString(record: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) if (typeof record[key] === 'string') return record[key];
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function findPathKey(record: Record<string, unknown>): string | undefined {
  return PATH_KEYS.find((key) => typeof record[key] === 'string' && record[key] !== '');
}

/** Codex `shell` passes argv (`["bash", "-lc", "npm test"]`): the script is what was run. */
function renderCommand(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value) && value.every((part) => typeof part === 'string')) {
    const argv = value as string[];
    const flag = argv.findIndex((part) => part === '-c' || part === '-lc');
    if (flag >= 0 && flag === argv.length - 2 && /(^|\/)(ba|z|da)?sh$/.test(argv[0] ?? '')) {
      return (argv[flag + 1] ?? '').trim();
    }
    return argv.map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
  }
  return value === undefined || value === null ? '' : renderValue(value, ARG_LIMIT);
}

/** The arguments as `key: value` lines; nested lists and objects (todos, task fields) as indented lines. */
function renderArgs(record: Record<string, unknown>, omit: string[], limit: number): string {
  const kept = Object.fromEntries(Object.entries(record).filter(([key]) => !omit.includes(key)));
  return renderReadable(kept, limit);
}

function renderValue(value: unknown, limit: number): string {
  return typeof value === 'string' ? truncate(value, limit) : renderReadable(value, limit);
}

function boundTarget(value: string): string {
  const firstLine = value.trim().split('\n', 1)[0] ?? '';
  return truncate(firstLine, TARGET_LIMIT);
}

function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/**
 * Levels of `content` wrapping unwrapped (`{content: [{type: 'text', text}]}` is two); deeper nesting is not a
 * provider's shape but hostile input, and every level is a call.
 */
const MAX_OUTPUT_DEPTH = 16;

/**
 * A tool's output as text: strings as they are, content-block arrays (`{type:'text'|'output_text', text}`) as
 * their texts, other objects as `key: value` lines. Images and other binary blocks become a short marker.
 */
export function stringifyToolOutput(output: unknown, depth = 0): string {
  if (output === null || output === undefined) return '';
  if (typeof output === 'string') return output;
  if (typeof output === 'number' || typeof output === 'boolean') return String(output);
  if (depth >= MAX_OUTPUT_DEPTH) return renderReadable(output, OUTPUT_VALUE_LIMIT, OUTPUT_LIMIT);
  if (Array.isArray(output)) {
    return output
      .map((block) => stringifyBlock(block, depth + 1))
      .filter((text) => text !== '')
      .join('\n');
  }
  if (typeof output === 'object') {
    const record = output as Record<string, unknown>;
    if (typeof record.text === 'string') return record.text;
    if ('content' in record && (typeof record.content === 'string' || Array.isArray(record.content))) {
      return stringifyToolOutput(record.content, depth + 1);
    }
    if (typeof record.output === 'string') return record.output;
    return renderReadable(record, OUTPUT_VALUE_LIMIT, OUTPUT_LIMIT);
  }
  return '';
}

function stringifyBlock(block: unknown, depth: number): string {
  if (typeof block === 'string') return block;
  if (block === null || typeof block !== 'object') return block === null || block === undefined ? '' : String(block);
  const record = block as Record<string, unknown>;
  if (typeof record.text === 'string') return record.text;
  const type = typeof record.type === 'string' ? record.type : '';
  if (type === '' || typeof record.content === 'string' || Array.isArray(record.content)) {
    return stringifyToolOutput(record, depth);
  }
  // Typed blocks without text (image, document, tool_reference) become a marker naming what they held.
  const name = [record.tool_name, record.name, record.file_name].find((value) => typeof value === 'string');
  return name ? `[${type}: ${String(name)}]` : `[${type}]`;
}
