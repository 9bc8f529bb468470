import { describe, expect, test } from 'vitest';
import { SOURCES } from '../../src/sources/index.js';
import { type RawRecord, type Source, isDocumentSource } from '../../src/sources/source.js';

/** Record types are transcript data: names that are also Object.prototype members count like any other. */
describe('record types named like Object.prototype members', () => {
  test.each(SOURCES.filter((source): source is Source => !isDocumentSource(source)).map((source) => [source.name, source] as const))('%s counts them as skipped, once each', (_name, source) => {
    const values: unknown[] = [{ type: 'valueOf' }, { type: 'constructor' }, { type: 'toString' }, { type: '__proto__' }, { type: 'valueOf' }];
    let offset = 0;
    const records: RawRecord[] = values.map((value, index) => {
      const text = JSON.stringify(value);
      const record = { line: index + 1, start: offset, end: offset + text.length + 1, value } as RawRecord;
      offset += text.length + 1;
      return record;
    });
    const chunk = source.parse(records, { path: '/t/proto.jsonl', carry: null });
    for (const [name, count] of Object.entries(chunk.skipped)) {
      expect(typeof count, name).toBe('number');
    }
    const total = Object.values(chunk.skipped).reduce((sum, count) => sum + count, 0);
    expect(total).toBeLessThanOrEqual(values.length);
    if (Object.hasOwn(chunk.skipped, 'valueOf')) expect(chunk.skipped.valueOf).toBe(2);
  });
});
