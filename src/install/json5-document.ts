import JSON5 from 'json5';
import { type ConfigDocument, detectEol, detectIndent, getAt, isPlainObject, malformedFile, unexpectedShape } from './document.js';
import { type LayoutStyle, type Member, type TreeNode, applyTextEdits, commaAfter, mostlyBareKeys, planAppend, planRemove, planSet, skipTrivia } from './json-tree.js';

/**
 * A JSON5 config (OpenClaw's openclaw.json: comments, bare keys, single quotes, trailing commas). json5 checks the
 * file and reads its values; a small parser of moon's finds where each key and value sit, for the edits of
 * json-tree.ts.
 */
export function openJson5Document(file: string, source: string): ConfigDocument {
  const bom = source.startsWith('\uFEFF') ? '\uFEFF' : '';
  const empty = source.slice(bom.length).trim() === '';
  let text = empty ? '{}' : source.slice(bom.length);
  let data = parseJson5(file, text);
  const indent = detectIndent(source);
  const style: LayoutStyle = { eol: detectEol(source), unit: indent.tabs ? '\t' : ' '.repeat(indent.size), bareKeys: !empty && mostlyBareKeys(parseTree(text)) };
  const apply = (edits: ReturnType<typeof planSet>): void => {
    text = applyTextEdits(text, edits);
    data = parseJson5(file, text);
  };
  return {
    format: 'json5',
    get text() {
      return `${bom}${text}${empty && !/\r?\n$/.test(text) ? style.eol : ''}`;
    },
    get data() {
      return data;
    },
    get: (path) => getAt(data, path),
    set: (path, value) => apply(planSet(file, text, parseTree(text), path, value, style)),
    remove: (path) => {
      if (getAt(data, path) !== undefined) apply(planRemove(text, parseTree(text), path));
    },
    append: (path, item) => apply(planAppend(file, text, parseTree(text), path, item, style)),
  };
}

function parseJson5(file: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON5.parse(text);
  } catch (error) {
    const problem = error as { lineNumber?: number; columnNumber?: number; message?: string };
    const message = (problem.message ?? String(error)).replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    throw malformedFile(file, problem.lineNumber ?? 1, problem.columnNumber ?? 1, `not valid JSON5 (${message})`);
  }
  if (!isPlainObject(value)) throw unexpectedShape(file, [], 'an object');
  return value;
}

/** The syntax tree of text json5 has already accepted. */
function parseTree(text: string): TreeNode {
  let pos = 0;
  const scanString = (): void => {
    const quote = text[pos];
    pos += 1;
    while (pos < text.length && text[pos] !== quote) pos += text[pos] === '\\' ? 2 : 1;
    pos += 1;
  };
  const scanWord = (): void => {
    while (pos < text.length && !/[\s{}[\]:,'"/]/.test(text[pos]!)) pos += 1;
  };
  const parseValue = (): TreeNode => {
    pos = skipTrivia(text, pos);
    const start = pos;
    const open = text[pos];
    if (open === '{' || open === '[') {
      pos += 1;
      const members: Member[] = [];
      const close = open === '{' ? '}' : ']';
      for (;;) {
        pos = skipTrivia(text, pos);
        if (text[pos] === close) break;
        const memberStart = pos;
        let key: string | null = null;
        let bare = false;
        if (open === '{') {
          bare = text[pos] !== '"' && text[pos] !== "'";
          if (bare) scanWord();
          else scanString();
          key = decodeKey(text.slice(memberStart, pos), bare);
          pos = skipTrivia(text, pos) + 1; // past the colon
        }
        const value = parseValue();
        const comma = commaAfter(text, pos);
        members.push({ start: memberStart, key, bare, value, comma });
        if (comma === null) {
          pos = skipTrivia(text, pos);
          break;
        }
        pos = comma + 1;
      }
      pos += 1;
      return { kind: open === '{' ? 'object' : 'array', start, end: pos, members };
    }
    if (open === '"' || open === "'") scanString();
    else scanWord();
    return { kind: 'scalar', start, end: pos, members: [] };
  };
  return parseValue();
}

function decodeKey(raw: string, bare: boolean): string {
  if (!bare) return JSON5.parse(raw) as string;
  return raw.includes('\\') ? Object.keys(JSON5.parse(`{${raw}:0}`) as object)[0]! : raw;
}
