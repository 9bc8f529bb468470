import { parse, patch } from '@decimalturn/toml-patch';
import { type ConfigDocument, type KeyPath, deepEqual, detectEol, getAt, isPlainObject, malformedFile, unexpectedShape } from './document.js';

/**
 * A TOML config (Codex's config.toml). A new table is appended as its own `[a.b]` section at the end of the file;
 * changing or removing one goes through toml-patch, which edits in place and keeps comments, order and layout.
 * Every result is parsed again and checked to hold exactly the intended values, else toml-patch does the edit.
 */
export function openTomlDocument(file: string, source: string): ConfigDocument {
  let text = source;
  let data = parseToml(file, text);
  const eol = detectEol(source);
  const commit = (next: string, expected: Record<string, unknown>): boolean => {
    let parsed: Record<string, unknown>;
    try {
      parsed = parseToml(file, next);
    } catch {
      return false;
    }
    if (!deepEqual(parsed, expected)) return false;
    text = next;
    data = parsed;
    return true;
  };
  const viaPatch = (expected: Record<string, unknown>): void => {
    const next = patch(text, expected);
    if (!commit(next, expected)) throw unexpectedShape(file, [], 'TOML moon can edit in place');
  };
  return {
    format: 'toml',
    get text() {
      return text;
    },
    get data() {
      return data;
    },
    get: (path) => getAt(data, path),
    set: (path, value) => {
      const expected = withValue(file, data, path, value);
      if (getAt(data, path) === undefined && isPlainObject(value) && path.every((key) => typeof key === 'string')) {
        if (commit(appendTable(text, path as string[], value, eol), expected)) return;
      }
      viaPatch(expected);
    },
    remove: (path) => {
      if (getAt(data, path) === undefined) return;
      const expected = withoutValue(data, path);
      const cut = cutTable(text, path);
      // Cutting `[a.b]` also takes away an `a` that held nothing else: the same to the agent as an empty `[a]`.
      if (cut !== null && (commit(cut, expected) || commit(cut, withoutEmptyParents(expected, path)))) return;
      viaPatch(expected);
    },
    append: (path) => {
      throw unexpectedShape(file, path, 'edited by moon only as a table');
    },
  };
}

function parseToml(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    const problem = error as { line?: number; column?: number; message?: string };
    const message = (problem.message ?? String(error)).split('\n').filter((line) => line.trim() !== '' && !/^\s*\^\s*$/.test(line));
    const reason = message[message.length - 1] ?? 'syntax error';
    throw malformedFile(file, problem.line ?? 1, (problem.column ?? 0) + 1, `not valid TOML (${reason.trim()})`);
  }
}

/** A copy of the tables and arrays; values (dates included, which toml-patch types by their written form) shared. */
function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => clone(item)) as T;
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clone(item)])) as T;
  return value;
}

function withValue(file: string, data: Record<string, unknown>, path: KeyPath, value: unknown): Record<string, unknown> {
  const copy = clone(data);
  let node: Record<string, unknown> = copy;
  for (const [depth, key] of path.slice(0, -1).entries()) {
    const next = node[key as string];
    if (next === undefined) node[key as string] = {};
    else if (!isPlainObject(next)) throw unexpectedShape(file, path.slice(0, depth + 1), 'a table');
    node = node[key as string] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = clone(value);
  return copy;
}

function withoutValue(data: Record<string, unknown>, path: KeyPath): Record<string, unknown> {
  const copy = clone(data);
  const parent = getAt(copy, path.slice(0, -1));
  if (isPlainObject(parent)) delete parent[path[path.length - 1] as string];
  return copy;
}

function withoutEmptyParents(data: Record<string, unknown>, path: KeyPath): Record<string, unknown> {
  const copy = clone(data);
  for (let depth = path.length - 1; depth >= 1; depth -= 1) {
    const parent = getAt(copy, path.slice(0, depth - 1));
    const key = path[depth - 1] as string;
    if (isPlainObject(parent) && isPlainObject(parent[key]) && Object.keys(parent[key]).length === 0) delete parent[key];
  }
  return copy;
}

/** `[a.b]` and one `key = value` line per entry, after a blank line at the end of the file. */
function appendTable(text: string, path: string[], table: Record<string, unknown>, eol: string): string {
  const lines = [`[${path.map(renderKey).join('.')}]`, ...Object.entries(table).map(([key, value]) => `${renderKey(key)} = ${renderValue(value)}`)];
  const body = lines.join(eol) + eol;
  if (text.trim() === '') return text + body;
  const ended = /\r?\n$/.test(text) ? text : text + eol;
  return `${ended}${/(\r?\n){2}$/.test(ended) ? '' : eol}${body}`;
}

/** The text without the `[a.b]` section that `appendTable` writes (and the blank line before it), or null. */
function cutTable(text: string, path: KeyPath): string | null {
  if (!path.every((key) => typeof key === 'string')) return null;
  const header = `[${(path as string[]).map(renderKey).join('.')}]`;
  const lines = text.split(/(?<=\n)/);
  const start = lines.findIndex((line) => line.trim() === header);
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end += 1;
  // Comments and blank lines just before the next section belong to it.
  while (end > start + 1 && /^\s*(#.*)?\r?\n?$/.test(lines[end - 1]!) && end < lines.length) end -= 1;
  let from = start;
  if (from > 0 && /^\s*\r?\n$/.test(lines[from - 1]!)) from -= 1;
  return [...lines.slice(0, from), ...lines.slice(end)].join('');
}

function renderKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : renderString(key);
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return renderString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(renderValue).join(', ')}]`;
  if (isPlainObject(value)) return `{ ${Object.entries(value).map(([key, item]) => `${renderKey(key)} = ${renderValue(item)}`).join(', ')} }`;
  throw new TypeError(`cannot write ${String(value)} as TOML`);
}

/** A TOML basic string: backslash, quote and control characters escaped. */
function renderString(value: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${value.replace(/[\\"\u0000-\u001f\u007f]/g, (char) => {
    const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };
    return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  })}"`;
}
