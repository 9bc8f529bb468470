import { type Node, type ParseError, parse, parseTree as parseJsonTree, printParseErrorCode } from 'jsonc-parser';
import { type ConfigDocument, detectEol, detectIndent, getAt, isPlainObject, lineColumnAt, malformedFile, unexpectedShape } from './document.js';
import { type LayoutStyle, type TreeNode, applyTextEdits, commaAfter, planAppend, planRemove, planSet } from './json-tree.js';

/**
 * A JSON settings file, comments and trailing commas allowed (as Claude Code and Codex read them). jsonc-parser
 * checks it, reads its values and gives the offsets of every key and value; json-tree.ts makes the edits.
 */
export function openJsonDocument(file: string, source: string): ConfigDocument {
  const bom = source.startsWith('\uFEFF') ? '\uFEFF' : '';
  const empty = source.slice(bom.length).trim() === '';
  let text = empty ? '{}' : source.slice(bom.length);
  let data = parseJson(file, text);
  const indent = detectIndent(source);
  const style: LayoutStyle = { eol: detectEol(source), unit: indent.tabs ? '\t' : ' '.repeat(indent.size), bareKeys: false };
  const apply = (edits: ReturnType<typeof planSet>): void => {
    text = applyTextEdits(text, edits);
    data = parseJson(file, text);
  };
  return {
    format: 'json',
    get text() {
      // A file moon creates ends with a line ending, as editors write it.
      return `${bom}${text}${empty && !/\r?\n$/.test(text) ? style.eol : ''}`;
    },
    get data() {
      return data;
    },
    get: (path) => getAt(data, path),
    set: (path, value) => apply(planSet(file, text, treeOf(text), path, value, style)),
    remove: (path) => {
      if (getAt(data, path) !== undefined) apply(planRemove(text, treeOf(text), path));
    },
    append: (path, item) => apply(planAppend(file, text, treeOf(text), path, item, style)),
  };
}

function parseJson(file: string, text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumnAt(text, first.offset);
    const reason = printParseErrorCode(first.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    throw malformedFile(file, line, column, `not valid JSON (${reason === 'invalid symbol' ? 'unexpected character' : reason})`);
  }
  if (!isPlainObject(value)) throw unexpectedShape(file, [], 'a JSON object');
  return value;
}

/** jsonc-parser's tree (of text it has accepted) as json-tree.ts reads it. */
function treeOf(text: string): TreeNode {
  const convert = (node: Node): TreeNode => {
    const end = node.offset + node.length;
    if (node.type === 'object') {
      return {
        kind: 'object',
        start: node.offset,
        end,
        members: (node.children ?? []).map((property) => {
          const [key, value] = property.children as [Node, Node];
          const converted = convert(value);
          return { start: key.offset, key: key.value as string, bare: false, value: converted, comma: commaAfter(text, converted.end) };
        }),
      };
    }
    if (node.type === 'array') {
      return {
        kind: 'array',
        start: node.offset,
        end,
        members: (node.children ?? []).map((item) => {
          const converted = convert(item);
          return { start: converted.start, key: null, bare: false, value: converted, comma: commaAfter(text, converted.end) };
        }),
      };
    }
    return { kind: 'scalar', start: node.offset, end, members: [] };
  };
  return convert(parseJsonTree(text, [], { allowTrailingComma: true, disallowComments: false })!);
}
