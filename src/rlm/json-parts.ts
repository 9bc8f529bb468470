/**
 * `JSON.stringify(value, null, 2)` of an object, in parts of a few tens of kilobytes: its members that are arrays
 * or objects are written an item at a time, so a large index is never one string on its way to the file (a string
 * over 128 KB goes straight to V8's old generation, where it stays, as garbage, until a full collection). The
 * parts joined are exactly what JSON.stringify gives.
 */
const PART_CHARS = 32 * 1024;

export function* formatJsonInParts(value: Record<string, unknown>): Generator<string> {
  const pending: string[] = [];
  let size = 0;
  const emit = function* (text: string): Generator<string> {
    pending.push(text);
    size += text.length;
    if (size >= PART_CHARS) {
      yield pending.join('');
      pending.length = 0;
      size = 0;
    }
  };
  const members = listMembers(value);
  if (members.length === 0) {
    yield '{}';
    return;
  }
  yield* emit('{');
  for (const [index, [key, member]] of members.entries()) {
    yield* emit(`${index === 0 ? '' : ','}\n  ${JSON.stringify(key)}: `);
    const items = Array.isArray(member) ? member.map((item): [string | null, unknown] => [null, item]) : isPlainObject(member) ? listMembers(member) : null;
    if (items === null || items.length === 0) {
      yield* emit(indent(JSON.stringify(member, null, 2), '  '));
      continue;
    }
    yield* emit(Array.isArray(member) ? '[' : '{');
    for (const [at, [name, item]] of items.entries()) {
      const text = indent(JSON.stringify(item, null, 2) ?? 'null', '    ');
      yield* emit(`${at === 0 ? '' : ','}\n    ${name === null ? '' : `${JSON.stringify(name)}: `}${text}`);
    }
    yield* emit(Array.isArray(member) ? '\n  ]' : '\n  }');
  }
  pending.push('\n}');
  yield pending.join('');
}

/**
 * An object's members as JSON.stringify writes them: own enumerable string keys, in order, leaving out those it
 * leaves out (undefined, functions, symbols).
 */
function listMembers(value: Record<string, unknown>): Array<[string, unknown]> {
  return Object.keys(value)
    .map((key): [string, unknown] => [key, value[key]])
    .filter(([, member]) => member !== undefined && typeof member !== 'function' && typeof member !== 'symbol');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

function indent(text: string, pad: string): string {
  return text.includes('\n') ? text.replaceAll('\n', `\n${pad}`) : text;
}
