import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDocumentFile } from '../../src/ingest/read-document.js';
import { type JsonPath, createJsonSplitter } from '../../src/sources/json-split.js';
import { parsePuffinHistory } from '../../src/sources/puffin-history.js';
import { readPuffinHistoryFile } from '../../src/sources/puffin-read.js';
import { createPuffinStreamReader, streamPuffinHistory } from '../../src/sources/puffin-stream.js';
import { puffinSource } from '../../src/sources/puffin.js';
import { DOCUMENT_STREAM_BYTES } from '../../src/sources/source.js';
import { makeTempDir } from '../helpers/cli.js';
import { writeGeneratedHistory } from './puffin-generate.js';

const FIXTURE = readFileSync(new URL('../fixtures/puffin/history-real-subset-small.json', import.meta.url));

/** The stream reader fed `bytes` in pieces of `size` (each piece a fresh copy, as a file stream gives them). */
function streamInPieces(bytes: Uint8Array, size: number) {
  const reader = createPuffinStreamReader();
  for (let start = 0; start < bytes.length; start += size) reader.write(Buffer.from(bytes.subarray(start, start + size)));
  return reader.end();
}

const whole = (bytes: Uint8Array | string) => parsePuffinHistory(JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8')));

describe('the JSON splitter', () => {
  const split = (text: string, descend: (path: JsonPath) => boolean, size = 1) => {
    const seen: [string, string][] = [];
    // Like the readers, the handler parses each value: the splitter checks the structure, JSON.parse the value.
    const splitter = createJsonSplitter({
      descend: (path) => descend(path),
      value: (path, value) => {
        JSON.parse(value);
        seen.push([path.join('.'), value]);
      },
    });
    const bytes = Buffer.from(text);
    for (let start = 0; start < bytes.length; start += size) splitter.write(bytes.subarray(start, start + size));
    splitter.end();
    return seen;
  };

  it('hands over each value not walked into as its own JSON text, at every cut', () => {
    const text = ' {"a": [1, "x\\"}]", {"b": null}], "c\\u00e9": {"d": true, "e": -1.5e3}, "f": "\\\\"} ';
    for (const size of [1, 2, 3, 5, 100]) {
      expect(split(text, (path) => path.length === 0 || (path.length === 1 && path[0] === 'a'), size)).toEqual([
        ['a.0', '1'],
        ['a.1', '"x\\"}]"'],
        ['a.2', '{"b": null}'],
        ['cé', '{"d": true, "e": -1.5e3}'],
        ['f', '"\\\\"'],
      ]);
    }
  });

  it('finds the end of long strings with escaped quotes and runs of backslashes, at every cut', () => {
    // Bodies past the byte-by-byte stretch are crossed quote to quote: each quote's preceding backslashes decide.
    const long = 'x'.repeat(40);
    const bodies = [`${long}\\"`, `${long}\\\\`, `${long}\\\\\\"${long}`, `${long}\\u0022é${long}`, `${long}\\\\"`.slice(0, -1), `€${long}\\n\\"\\\\`];
    const values = bodies.map((body) => JSON.parse(`"${body}"`) as string);
    const text = JSON.stringify({ a: values, b: { c: values.map((value) => ({ value })) } });
    for (const size of [1, 2, 3, 7, 41, 43, 44, 45, 1000]) {
      const found = split(text, (path) => path.length === 0 || (path.length === 1 && path[0] === 'a'), size);
      expect(found.map(([, part]) => JSON.parse(part) as unknown)).toEqual([...values, { c: values.map((value) => ({ value })) }]);
    }
  });

  it('takes a scalar root and a byte order mark', () => {
    expect(split('42', () => false)).toEqual([['', '42']]);
    expect(split('\uFEFF{"a":1}', (path) => path.length === 0)).toEqual([['a', '1']]);
  });

  it.each([
    ['a missing comma', '{"a": 1 "b": 2}'],
    ['a trailing comma', '{"a": 1,}'],
    ['data after the document', '{"a": 1} {"b": 2}'],
    ['a cut-off document', '{"a": [1, 2'],
    ['a cut-off string', '{"a": "abc'],
    ['a bare word', '{"a": nope}'],
    ['nothing', '   '],
  ])('rejects %s with a SyntaxError, as JSON.parse does', (_name, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => split(text, (path) => path.length === 0)).toThrow(SyntaxError);
  });
});

describe('streaming a Puffin history gives what a whole parse gives', () => {
  it('on the real fixture, cut into pieces of any size, down to single bytes', () => {
    const expected = whole(FIXTURE);
    for (const size of [1, 2, 3, 7, 64, 4096, FIXTURE.length]) expect(streamInPieces(FIXTURE, size)).toEqual(expected);
    expect(streamPuffinHistory(FIXTURE)).toEqual(expected);
  });

  it('on repeated keys (the last wins, in the first one’s place), __proto__ ids and malformed prompts', () => {
    const text = JSON.stringify({ branches: { gone: { prompts: [] } }, activeBranch: 'a' }).replace(
      /}$/,
      `, "branches": {"__proto__": {"name": "P", "prompts": [{"id": "x"}]}, "b": {"prompts": [1]}, "b": {"name": "B", "prompts": [], "prompts": [{"id": "p1", "content": "hi", "timestamp": 5, "response": null}, 7]}}}`,
    );
    const expected = whole(text);
    expect(expected.branches.map((branch) => branch.id)).toEqual(['__proto__', 'b']);
    expect(expected.skipped).toHaveLength(2);
    for (const size of [1, 4, 1000]) expect(streamInPieces(Buffer.from(text), size)).toEqual(expected);
  });

  it('says null for JSON that is no Puffin history, and throws SyntaxError for malformed JSON', () => {
    for (const text of ['[1, 2]', '{"branches": []}', '{"branches": {"a": {"prompts": {}}}}', '"text"', '{"branches": {"a": 3}}']) {
      expect(puffinSource.detect(JSON.parse(text))).toBe(false);
      expect(streamPuffinHistory(Buffer.from(text))).toBeNull();
    }
    const broken = Buffer.from(FIXTURE.toString('utf8').replace('"activeBranch"', '"activeBranch" "'));
    expect(() => streamPuffinHistory(broken)).toThrow(SyntaxError);
  });
});

describe(`a history over ${DOCUMENT_STREAM_BYTES / 1024 / 1024} MB`, () => {
  const dir = makeTempDir('moon-puffin-large-');
  afterAll(() => dir.cleanup());
  const path = join(dir.path, 'proj', '.puffin', 'history.json');

  it('is streamed by readPuffinHistoryFile and by ingest, and reads exactly as a whole parse reads it', { timeout: 180_000 }, async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir.path, 'proj', '.puffin'), { recursive: true });
    const made = writeGeneratedHistory(path, { targetBytes: DOCUMENT_STREAM_BYTES + 4 * 1024 * 1024 });
    expect(statSync(path).size).toBeGreaterThan(DOCUMENT_STREAM_BYTES);
    const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
    const streamed = await readPuffinHistoryFile(path);
    expect(streamed.totalPrompts).toBe(made.prompts);
    expect(streamed.branches[0]!.id).toBe('branch-2');
    expect(streamed.skipped).toEqual([]);
    const bytes = readFileSync(path);
    const expected = whole(bytes);
    expect(digest(streamed)).toBe(digest(expected));
    // Ingest streams it too (the file is at the threshold), and maps the same sessions.
    const read = readDocumentFile(path, bytes);
    expect(read?.source.name).toBe('puffin');
    const mapped = puffinSource.parseDocument(expected, { path });
    expect(read!.parsed.sessions.map((session) => session.parts)).toEqual(mapped.sessions.map((session) => session.parts));
  });

  it('a small file is read whole and says so in its errors, naming the file', async () => {
    const small = join(dir.path, 'small.json');
    writeFileSync(small, '{"branches": {"a": {"prompts": [}}');
    await expect(readPuffinHistoryFile(small)).rejects.toThrow(`${small}: not valid JSON`);
    writeFileSync(small, '{"other": 1}');
    await expect(readPuffinHistoryFile(small)).rejects.toThrow(`${small}: not a Puffin history`);
    await expect(readPuffinHistoryFile(join(dir.path, 'missing.json'))).rejects.toThrow('cannot read (ENOENT)');
    writeFileSync(small, FIXTURE);
    expect(await readPuffinHistoryFile(small)).toEqual(whole(FIXTURE));
  });
});
