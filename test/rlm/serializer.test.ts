import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ajvModule from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { generateHistoryIndex } from '../../src/rlm/generator.js';
import { deserializeIndex, HISTORY_INDEX_SCHEMA_URL, readIndex, serializeIndex, validateIndex, writeIndex } from '../../src/rlm/serializer.js';
import type { HistoryIndex } from '../../src/rlm/types.js';
import { REPO } from '../helpers/cli.js';
import { buildSampleHistory, countTokens } from './history-builder.js';

let dir: string;
let index: HistoryIndex;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-ser-'));
  const history = join(dir, 'history.json');
  writeFileSync(history, JSON.stringify(buildSampleHistory()));
  index = (await generateHistoryIndex({ historyPath: history, outputPath: join(dir, 'built.json'), incremental: false, provider: null, countTokens })).index;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the shipped JSON Schema', () => {
  const schema = JSON.parse(readFileSync(HISTORY_INDEX_SCHEMA_URL, 'utf8')) as Record<string, unknown>;

  it('is a draft 2020-12 schema in schemas/, shipped in the package', () => {
    expect(HISTORY_INDEX_SCHEMA_URL.pathname).toBe(join(REPO, 'schemas', 'history-index.schema.json'));
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { files: string[]; dependencies: Record<string, string> };
    expect(manifest.files).toContain('schemas');
    expect(manifest.dependencies.ajv).toBeDefined();
    // Seed 004's required fields are all still required.
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'generatedAt', 'historyFile', 'contentHash', 'segments', 'markers', 'topicIndex', 'statistics']));
  });

  it('validates what the generator writes, checked by a fresh validator', () => {
    const ajv = new ajvModule.default({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const written = JSON.parse(readFileSync(join(dir, 'built.json'), 'utf8'));
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('the serializer', () => {
  it('round-trips an index; per-prompt rows one to a line', () => {
    const text = serializeIndex(index);
    expect(deserializeIndex(text, 'x.json')).toEqual(index);
    expect(text).toContain(`\n    ${JSON.stringify(index.prompts[0])},\n`);
    const empty = { ...index, segments: [], markers: [], topicIndex: {}, prompts: [], branches: [], statistics: { ...index.statistics, totalPrompts: 0, totalSegments: 0, totalMarkers: 0 } };
    expect(deserializeIndex(serializeIndex(empty), 'x.json')).toEqual(empty);
  });

  it.each([
    ['a segment summary over 1000 characters', (value: HistoryIndex) => (value.segments[0]!.summary = 'x'.repeat(1001)), /summary must NOT have more than 1000 characters/],
    ['an importance above 1', (value: HistoryIndex) => (value.segments[0]!.importanceScore = 1.5), /importanceScore must be <= 1/],
    ['a field the schema does not know', (value: HistoryIndex) => Object.assign(value.segments[0]!, { extra: true }), /must NOT have additional properties/],
    ['a hash that is not SHA-256 hex', (value: HistoryIndex) => (value.contentHash = 'abc'), /contentHash must match pattern/],
    ['a bad date', (value: HistoryIndex) => (value.generatedAt = 'yesterday'), /generatedAt must match format "date-time"/],
    ['a marker naming no segment', (value: HistoryIndex) => (value.markers[0]!.segmentId = 'seg-nowhere'), /names segment seg-nowhere/],
    ['a prompt in two segments', (value: HistoryIndex) => value.segments[1]!.promptIds.push(value.segments[0]!.promptIds[0]!), /is in segments/],
    ['a wrong total', (value: HistoryIndex) => (value.statistics.totalMarkers += 1), /totalMarkers is/],
    ['another major version', (value: HistoryIndex) => (value.version = '2.0.0'), /is not a 1\.x index/],
  ])('rejects %s, saying where', (_what, corrupt, message) => {
    const broken = structuredClone(index);
    corrupt(broken);
    const result = validateIndex(broken);
    expect(result.valid).toBe(false);
    expect(result.errors.join('; ')).toMatch(message);
    expect(() => serializeIndex(broken)).toThrow(MoonError);
    expect(() => deserializeIndex(JSON.stringify(broken), '/p/index.json')).toThrow(/^\/p\/index\.json is not a valid history index: /);
  });

  it('writes atomically: the old file stays whole when a write is refused, and no temporary file is left', () => {
    const path = join(dir, 'atomic.json');
    writeIndex(index, path);
    const before = readFileSync(path, 'utf8');
    expect(() => writeIndex({ ...index, contentHash: 'nope' }, path)).toThrow();
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(readdirSync(dir).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('reads a missing index as null and an unreadable one as an error naming it', () => {
    expect(readIndex(join(dir, 'none.json'))).toBeNull();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"version": "1.0.0"');
    expect(() => readIndex(bad)).toThrow(`${bad} is not a valid history index: it is not JSON`);
    const error = (() => {
      try {
        readIndex(dir);
      } catch (caught) {
        return caught as MoonError;
      }
      return null;
    })();
    expect(error?.code).toBe('unreadable');
    expect(error?.message).toContain(`cannot read the history index ${dir}`);
  });
});
