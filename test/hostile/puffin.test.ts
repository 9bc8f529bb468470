import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createJsonSplitter } from '../../src/sources/json-split.js';
import { isPuffinHistory, parsePuffinHistory } from '../../src/sources/puffin-history.js';
import { createPuffinStreamReader } from '../../src/sources/puffin-stream.js';
import { puffinSource } from '../../src/sources/puffin.js';
import { anyJson, maybe } from './records.js';
import { propertyRuns } from './runs.js';

/**
 * Puffin histories against hostile documents: the streaming reader reads any JSON exactly as a whole parse does
 * (same view, or both "not a history", or both a SyntaxError), wherever the bytes are cut; the adapter never
 * throws on a history of wrong-typed fields, and its sessions have unique ids and unique entry keys.
 */
const RUNS = propertyRuns(150, 8_000);

const promptId = fc.oneof(fc.constantFrom('p1', 'p2', 'p3', 'p4', '__proto__', 'constructor', ''), fc.string({ maxLength: 6 }));
const prompt = fc.record(
  {
    id: maybe(promptId),
    parentId: maybe(fc.option(promptId)),
    content: maybe(fc.string({ maxLength: 40 })),
    title: maybe(fc.option(fc.string({ maxLength: 10 }))),
    timestamp: maybe(fc.oneof(fc.integer({ min: 0, max: 2 ** 42 }), fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), fc.string({ maxLength: 5 }))),
    response: maybe(
      fc.option(
        fc.record(
          { content: maybe(fc.string({ maxLength: 30 })), timestamp: maybe(fc.integer({ min: 0, max: 2 ** 42 })), filesModified: maybe(fc.array(fc.record({ path: maybe(fc.string({ maxLength: 8 })), action: maybe(fc.string({ maxLength: 6 })) }), { maxLength: 3 })) },
          { requiredKeys: [] },
        ),
      ),
    ),
    children: maybe(fc.array(promptId, { maxLength: 3 })),
    type: maybe(fc.constantFrom('derivation', 'story-thread')),
  },
  { requiredKeys: [] },
);
const branchId = fc.oneof(fc.constantFrom('main', 'ui', '__proto__', '1', 'tmp'), fc.string({ maxLength: 5 }));
const history = fc.record(
  {
    branches: maybe(fc.dictionary(branchId, fc.record({ name: maybe(fc.string({ maxLength: 8 })), prompts: maybe(fc.array(fc.oneof({ weight: 8, arbitrary: prompt }, { weight: 1, arbitrary: anyJson }), { maxLength: 8 })) }, { requiredKeys: [] }), { maxKeys: 4 })),
    activeBranch: maybe(branchId),
    branchOrder: maybe(fc.array(branchId, { maxLength: 4 })),
    updatedAt: maybe(fc.string({ maxLength: 5 })),
  },
  { requiredKeys: [] },
);

/** A document as text: Puffin's own indentation, none, or some; sometimes with a byte order mark. */
const layout = fc.record({ indent: fc.constantFrom(0, 1, 2, '\t'), bom: fc.boolean() });
const render = (value: unknown, form: { indent: number | string; bom: boolean }): string => `${form.bom ? '\uFEFF' : ''}${JSON.stringify(value, null, form.indent)}`;

/** What a whole parse makes of a text: the view, null (not a history), or 'syntax' (not JSON). */
function readWhole(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    if (error instanceof SyntaxError) return 'syntax';
    throw error;
  }
  return isPuffinHistory(value) ? parsePuffinHistory(value) : null;
}

function readStreamed(text: string, cuts: number[]): unknown {
  const bytes = Buffer.from(text);
  const reader = createPuffinStreamReader();
  try {
    let start = 0;
    for (const cut of [...cuts.map((at) => at % (bytes.length + 1)), bytes.length].sort((a, b) => a - b)) {
      reader.write(Buffer.from(bytes.subarray(start, cut)));
      start = cut;
    }
    return reader.end();
  } catch (error) {
    if (error instanceof SyntaxError) return 'syntax';
    throw error;
  }
}

describe('Puffin histories against hostile documents', () => {
  test('streaming reads any history-shaped document as a whole parse does, cut anywhere', () => {
    fc.assert(
      fc.property(history, layout, fc.array(fc.nat(), { maxLength: 6 }), (value, form, cuts) => {
        const text = render(value, form);
        expect(readStreamed(text, cuts)).toEqual(readWhole(text));
      }),
      RUNS,
    );
  });

  test('and any JSON at all, and text that is not JSON (a cut, a stray character)', () => {
    const broken = fc.tuple(history, fc.nat(), fc.constantFrom('', ',', '}', '"', '\\', ' x', ':', '[')).map(([value, at, insert]) => {
      const text = JSON.stringify(value, null, 1);
      const cut = at % (text.length + 1);
      return `${text.slice(0, cut)}${insert}${text.slice(cut + (insert === '' ? 1 : 0))}`;
    });
    fc.assert(
      fc.property(fc.oneof(anyJson.map((value) => JSON.stringify(value, null, 2)), broken), fc.array(fc.nat(), { maxLength: 4 }), (text, cuts) => {
        expect(readStreamed(text, cuts)).toEqual(readWhole(text));
      }),
      RUNS,
    );
  });

  test('the splitter hands over exactly the values JSON.parse finds, for any JSON', () => {
    fc.assert(
      fc.property(anyJson, fc.nat(), (value, cut) => {
        const text = JSON.stringify(value, null, 2);
        const found: unknown[] = [];
        const splitter = createJsonSplitter({ descend: (path) => path.length === 0, value: (_path, part) => found.push(JSON.parse(part)) });
        const bytes = Buffer.from(text);
        const at = cut % (bytes.length + 1);
        splitter.write(bytes.subarray(0, at));
        splitter.write(bytes.subarray(at));
        splitter.end();
        const parsed = JSON.parse(text) as unknown;
        const expected = typeof parsed === 'object' && parsed !== null ? Object.values(parsed) : [parsed];
        expect(found).toEqual(expected);
      }),
      RUNS,
    );
  });

  test('the adapter never throws; session ids and entry keys are unique', () => {
    fc.assert(
      fc.property(history, (value) => {
        if (!puffinSource.detect(value)) return;
        const { sessions } = puffinSource.parseDocument(puffinSource.readDocument(value), { path: '/p/.puffin/history.json' });
        const ids = sessions.map((session) => session.chunk.session.id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const { chunk } of sessions) {
          const keys = chunk.entries.map((entry) => entry.key);
          expect(new Set(keys).size).toBe(keys.length);
          for (const entry of chunk.entries) expect(typeof entry.text).toBe('string');
        }
      }),
      RUNS,
    );
  });
});
