import { type KeyPath, isPlainObject, unexpectedShape } from './document.js';

/**
 * Text edits to JSON-family files (JSON with comments, JSON5) that keep everything around them as written. The
 * syntax tree comes from the file's own parser (jsonc-parser for JSON, moon's for JSON5) with offsets; an entry
 * is added after the last member of its object or list, in that container's style — one member per line or all
 * on one, with a trailing comma or without, keys quoted or bare — and removing it takes back exactly the text
 * adding it wrote. Nothing else is re-indented or re-formatted.
 */
export interface TreeNode {
  kind: 'object' | 'array' | 'scalar';
  start: number;
  /** Just past the value's last character. */
  end: number;
  members: Member[];
}

/** A property of an object (with its key) or an item of a list. */
export interface Member {
  /** Where the member starts: its key, or the item's value. */
  start: number;
  key: string | null;
  /** The key is written without quotes (JSON5). */
  bare: boolean;
  value: TreeNode;
  /** The offset of the comma after the value, or null. */
  comma: number | null;
}

export interface TextEdit {
  start: number;
  end: number;
  insert: string;
}

export interface LayoutStyle {
  eol: string;
  /** One level of indentation. */
  unit: string;
  /** Keys written bare (JSON5) where an object has none yet to copy. */
  bareKeys: boolean;
}

export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) result = result.slice(0, edit.start) + edit.insert + result.slice(edit.end);
  return result;
}

/** The offset just past blanks and comments from `pos`. */
export function skipTrivia(text: string, pos: number): number {
  let at = pos;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at += 1;
    if (text.startsWith('//', at)) {
      while (at < text.length && !/[\n\r\u2028\u2029]/.test(text[at]!)) at += 1;
    } else if (text.startsWith('/*', at)) {
      const close = text.indexOf('*/', at + 2);
      at = close < 0 ? text.length : close + 2;
    } else return at;
  }
}

/** The comma after a member's value, if there is one. */
export function commaAfter(text: string, end: number): number | null {
  const at = skipTrivia(text, end);
  return text[at] === ',' ? at : null;
}

/** The member at `path`, with its container; null when something on the way is absent. */
function locate(tree: TreeNode, path: KeyPath): { parent: TreeNode; index: number } | null {
  let node = tree;
  for (let depth = 0; depth < path.length; depth += 1) {
    const index = memberIndex(node, path[depth]!);
    if (index < 0) return null;
    if (depth === path.length - 1) return { parent: node, index };
    node = node.members[index]!.value;
  }
  return null;
}

function memberIndex(node: TreeNode, key: string | number): number {
  if (node.kind === 'array') return typeof key === 'number' && key >= 0 && key < node.members.length ? key : -1;
  if (node.kind !== 'object' || typeof key !== 'string') return -1;
  // Parsers keep the last of duplicate keys: so does the editor.
  for (let index = node.members.length - 1; index >= 0; index -= 1) if (node.members[index]!.key === key) return index;
  return -1;
}

/** Set `path` to `value`: replace the value when the key is there, else add the key (and the objects on the way). */
export function planSet(file: string, text: string, tree: TreeNode, path: KeyPath, value: unknown, style: LayoutStyle): TextEdit[] {
  let node = tree;
  for (let depth = 0; depth < path.length; depth += 1) {
    const key = path[depth]!;
    const index = memberIndex(node, key);
    if (index < 0) {
      if (node.kind !== 'object' || typeof key !== 'string') throw unexpectedShape(file, path.slice(0, depth), typeof key === 'string' ? 'an object' : 'a list');
      const nested = path.slice(depth + 1).reduceRight<unknown>((inner, name) => ({ [name as string]: inner }), value);
      return [insertMember(text, node, key, nested, style)];
    }
    const member = node.members[index]!;
    if (depth === path.length - 1) {
      return [{ start: member.value.start, end: member.value.end, insert: render(value, indentOfLine(text, member.start), style, keysBare(node, style)) }];
    }
    if (member.value.kind === 'scalar') throw unexpectedShape(file, path.slice(0, depth + 1), 'an object');
    node = member.value;
  }
  throw unexpectedShape(file, path, 'a key');
}

/** Add `item` after the last item of the list at `path`. */
export function planAppend(file: string, text: string, tree: TreeNode, path: KeyPath, item: unknown, style: LayoutStyle): TextEdit[] {
  const found = locate(tree, path);
  const list = found ? found.parent.members[found.index]!.value : path.length === 0 ? tree : null;
  if (!list || list.kind !== 'array') throw unexpectedShape(file, path, 'a list');
  return [insertMember(text, list, null, item, style)];
}

function keysBare(node: TreeNode, style: LayoutStyle): boolean {
  const keyed = node.members.filter((member) => member.key !== null);
  return keyed.length > 0 ? keyed.every((member) => member.bare) : style.bareKeys;
}

function insertMember(text: string, container: TreeNode, key: string | null, value: unknown, style: LayoutStyle): TextEdit {
  const bare = keysBare(container, style);
  const keyText = key === null ? '' : `${renderKey(key, bare)}: `;
  const open = indentOfLine(text, container.start);
  if (container.members.length === 0) {
    const inner = open + style.unit;
    return { start: container.start + 1, end: container.start + 1, insert: `${style.eol}${inner}${keyText}${render(value, inner, style, bare)}${style.eol}${open}` };
  }
  const first = container.members[0]!;
  const last = container.members[container.members.length - 1]!;
  if (!/[\r\n]/.test(text.slice(container.start, first.start))) {
    // All on one line: `{"a": 1, "b": 2}` gets `, "moon": {…}` (after the comma when it has a trailing one).
    const entry = `${keyText}${renderInline(value, bare)}`;
    return last.comma !== null
      ? { start: last.comma + 1, end: last.comma + 1, insert: ` ${entry},` }
      : { start: last.value.end, end: last.value.end, insert: `, ${entry}` };
  }
  const indent = indentOfLine(text, last.start);
  const entry = `${style.eol}${indent}${keyText}${render(value, indent, style, bare)}${last.comma !== null ? ',' : ''}`;
  // On a new line after the last member's line (its comma, and a comment on that line, stay where they are).
  const after = endOfLine(text, last.comma !== null ? last.comma + 1 : last.value.end, container.end - 1);
  if (last.comma !== null) return { start: after, end: after, insert: entry };
  return { start: last.value.end, end: after, insert: `,${text.slice(last.value.end, after)}${entry}` };
}

/** Remove the member at `path`: the exact reverse of adding it. */
export function planRemove(text: string, tree: TreeNode, path: KeyPath): TextEdit[] {
  const found = locate(tree, path);
  if (!found) return [];
  const { parent, index } = found;
  const member = parent.members[index]!;
  const memberEnd = member.comma !== null ? member.comma + 1 : member.value.end;
  if (parent.members.length === 1) {
    const rest = text.slice(parent.start + 1, member.start) + text.slice(memberEnd, parent.end - 1);
    if (/^\s*$/.test(rest)) return [{ start: parent.start + 1, end: parent.end - 1, insert: '' }];
    return [{ start: member.start, end: memberEnd, insert: '' }];
  }
  const lineBreak = lineBreakBefore(text, member.start);
  if (index === parent.members.length - 1) {
    const previous = parent.members[index - 1]!;
    if (lineBreak === null) {
      return member.comma !== null ? [{ start: previous.comma! + 1, end: memberEnd, insert: '' }] : [{ start: previous.comma!, end: member.value.end, insert: '' }];
    }
    if (member.comma !== null) return [{ start: lineBreak, end: memberEnd, insert: '' }];
    return [
      { start: previous.comma!, end: previous.comma! + 1, insert: '' },
      { start: lineBreak, end: member.value.end, insert: '' },
    ];
  }
  const next = parent.members[index + 1]!;
  if (lineBreak === null) return [{ start: member.start, end: next.start, insert: '' }];
  // The member's own lines: from its line's start through the line break after its comma.
  const end = endOfLine(text, memberEnd, next.start);
  const breakLength = text.startsWith('\r\n', end) ? 2 : /[\r\n]/.test(text[end] ?? '') ? 1 : 0;
  return [{ start: lineBreak + (text.startsWith('\r\n', lineBreak) ? 2 : 1), end: end + breakLength, insert: '' }];
}

/** Whether most keys of the file are written bare (`mcp: {…}`) rather than quoted. */
export function mostlyBareKeys(tree: TreeNode): boolean {
  let bare = 0;
  let quoted = 0;
  const walk = (node: TreeNode): void => {
    for (const member of node.members) {
      if (member.key !== null) {
        if (member.bare) bare += 1;
        else quoted += 1;
      }
      walk(member.value);
    }
  };
  walk(tree);
  return bare > quoted;
}

/** The leading blanks of the line holding `offset`. */
function indentOfLine(text: string, offset: number): string {
  const start = Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1)) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

/** Where the line holding `offset` ends (its line break), past blanks and comments, never beyond `limit`. */
function endOfLine(text: string, offset: number, limit: number): number {
  let pos = offset;
  for (;;) {
    while (pos < limit && (text[pos] === ' ' || text[pos] === '\t')) pos += 1;
    if (text.startsWith('//', pos)) {
      while (pos < limit && text[pos] !== '\n' && text[pos] !== '\r') pos += 1;
      return pos;
    }
    if (text.startsWith('/*', pos)) {
      const close = text.indexOf('*/', pos + 2);
      if (close < 0 || /[\r\n]/.test(text.slice(pos, close))) return pos;
      pos = close + 2;
      continue;
    }
    return pos;
  }
}

/** The line break just before the line holding `offset`, when only blanks precede `offset` on that line. */
function lineBreakBefore(text: string, offset: number): number | null {
  const lineStart = Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1)) + 1;
  if (lineStart === 0 || !/^[ \t]*$/.test(text.slice(lineStart, offset))) return null;
  return text[lineStart - 1] === '\n' && text[lineStart - 2] === '\r' ? lineStart - 2 : lineStart - 1;
}

/** A value as text starting on a line indented by `indent`: objects one key per line, lists of scalars inline. */
function render(value: unknown, indent: string, style: LayoutStyle, bare: boolean): string {
  if (Array.isArray(value)) {
    if (value.every((item) => item === null || typeof item !== 'object')) return renderInline(value, bare);
    const inner = indent + style.unit;
    return `[${value.map((item) => `${style.eol}${inner}${render(item, inner, style, bare)}`).join(',')}${style.eol}${indent}]`;
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = indent + style.unit;
    return `{${entries.map(([key, item]) => `${style.eol}${inner}${renderKey(key, bare)}: ${render(item, inner, style, bare)}`).join(',')}${style.eol}${indent}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function renderInline(value: unknown, bare: boolean): string {
  if (Array.isArray(value)) return `[${value.map((item) => renderInline(item, bare)).join(', ')}]`;
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${renderKey(key, bare)}: ${renderInline(item, bare)}`).join(', ')} }`;
  }
  return JSON.stringify(value) ?? 'null';
}

function renderKey(key: string, bare: boolean): string {
  return bare && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}
