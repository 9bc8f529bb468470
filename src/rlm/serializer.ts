import { readFileSync } from 'node:fs';
import ajvModule from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { errnoOf, MoonError } from '../errors.js';
import { writeFileAtomically } from './atomic-write.js';
import { formatJsonInParts } from './json-parts.js';
import { HISTORY_INDEX_VERSION, type HistoryIndex } from './types.js';
import { describeJsonError } from '../text/json-error.js';

/**
 * The index serializer (seed 004 §7): HistoryIndex ↔ JSON, checked against the JSON Schema shipped with the
 * package (`schemas/history-index.schema.json`, draft 2020-12) on every write and every read, plus the checks a
 * schema cannot state (unique ids, every reference pointing at something). Writes go through a temporary file
 * and a rename. A file that cannot be read or is not a valid index is an error naming it — never overwritten,
 * never used.
 */
export const HISTORY_INDEX_SCHEMA_URL = new URL('../../schemas/history-index.schema.json', import.meta.url);

let validator: ValidateFunction | null = null;

/** The shipped schema, parsed. */
export function loadHistoryIndexSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(HISTORY_INDEX_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
}

function compileValidator(): ValidateFunction {
  if (validator) return validator;
  const Ajv2020 = ajvModule.default;
  // The schema's patterns are ASCII: plain regular expressions check 200k hashes of a large index faster than
  // Unicode-mode ones. The schema itself is not checked against the draft's meta-schema on every run (a third of
  // the compile time): it ships with the package, and test/rlm/serializer.test.ts checks it with a fresh validator.
  const ajv = new Ajv2020({ allErrors: true, strict: true, unicodeRegExp: false, validateSchema: false });
  // RFC 3339 date-time, the only format the schema uses (no format plugin needed for one).
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/iu.test(value) && !Number.isNaN(Date.parse(value)),
  });
  validator = ajv.compile(loadHistoryIndexSchema());
  return validator;
}

const MAX_REPORTED = 8;

/** Schema errors, then consistency errors; at most a few of each, each naming where. */
export function validateIndex(value: unknown): { valid: boolean; errors: string[] } {
  const validate = compileValidator();
  if (!validate(value)) {
    const errors = (validate.errors ?? []).slice(0, MAX_REPORTED).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`);
    return { valid: false, errors };
  }
  const errors = checkConsistency(value as HistoryIndex);
  return { valid: errors.length === 0, errors };
}

/** What the schema cannot say: ids unique, references resolved, each prompt in one segment, a known major version. */
export function checkConsistency(index: HistoryIndex): string[] {
  const errors: string[] = [];
  const add = (message: string): void => {
    if (errors.length < MAX_REPORTED) errors.push(message);
  };
  const major = index.version.split('.')[0];
  if (major !== HISTORY_INDEX_VERSION.split('.')[0]) add(`/version ${index.version} is not a ${HISTORY_INDEX_VERSION.split('.')[0]}.x index`);
  // One map for the 100k prompts of a large index (a set of ids and a map of owners would be two): id → the
  // segment holding it, '' while none does; ids /prompts does not list are kept apart.
  const owner = new Map<string, string>();
  for (const prompt of index.prompts) {
    if (owner.has(prompt.id)) add(`/prompts: prompt ${prompt.id} is listed twice`);
    owner.set(prompt.id, '');
  }
  const listed = owner.size;
  const unlisted = new Set<string>();
  let owned = 0;
  const segments = new Set<string>();
  for (const segment of index.segments) {
    if (segments.has(segment.id)) add(`/segments: segment ${segment.id} is listed twice`);
    segments.add(segment.id);
    for (const id of segment.promptIds) {
      const other = owner.get(id);
      if (other === undefined) unlisted.add(id);
      if (unlisted.has(id)) add(`/segments: segment ${segment.id} names prompt ${id}, which /prompts does not hold`);
      if (other) add(`/segments: prompt ${id} is in segments ${other} and ${segment.id}`);
      else owned += 1;
      owner.set(id, segment.id);
    }
  }
  if (owned !== listed) add(`/segments hold ${owned} prompts but /prompts lists ${listed}`);
  const isListed = (id: string): boolean => owner.has(id) && !unlisted.has(id);
  for (const marker of index.markers) {
    if (!segments.has(marker.segmentId)) add(`/markers: a marker names segment ${marker.segmentId}, which /segments does not hold`);
    if (!isListed(marker.promptId)) add(`/markers: a marker names prompt ${marker.promptId}, which /prompts does not hold`);
  }
  for (const [topic, ids] of Object.entries(index.topicIndex)) {
    for (const id of ids) if (!segments.has(id)) add(`/topicIndex/${topic} names segment ${id}, which /segments does not hold`);
  }
  for (const branch of index.branches) {
    for (const id of branch.segmentIds) if (!segments.has(id)) add(`/branches: branch ${branch.id} names segment ${id}, which /segments does not hold`);
  }
  const stats = index.statistics;
  if (stats.totalSegments !== index.segments.length) add(`/statistics/totalSegments is ${stats.totalSegments} but there are ${index.segments.length} segments`);
  if (stats.totalPrompts !== index.prompts.length) add(`/statistics/totalPrompts is ${stats.totalPrompts} but there are ${index.prompts.length} prompts`);
  if (stats.totalMarkers !== index.markers.length) add(`/statistics/totalMarkers is ${stats.totalMarkers} but there are ${index.markers.length} markers`);
  return errors;
}

/**
 * The index as JSON: two-space indentation, except the per-prompt rows, one to a line (a 100k-prompt history
 * would otherwise spend half a million lines on them). Refuses an index that does not validate.
 */
export function serializeIndex(index: HistoryIndex): string {
  return [...serializeIndexInParts(index)].join('');
}

/** Rows of `prompts` per part (a few tens of kilobytes). */
const ROWS_PER_PART = 256;

/**
 * serializeIndex's text in parts of a few tens of kilobytes, in order: what writeIndex writes, so a large index is
 * never one string (nor its rows one array of strings) on its way to the file. Validates first.
 */
export function serializeIndexInParts(index: HistoryIndex): Iterable<string> {
  const result = validateIndex(index);
  if (!result.valid) throw new MoonError('internal', `refusing to write an invalid history index: ${result.errors.join('; ')}`);
  return writeParts(index);
}

function* writeParts(index: HistoryIndex): Generator<string> {
  const { prompts, ...rest } = index;
  // The body without its closing `\n}`: the prompts come before it.
  let last: string | null = null;
  for (const part of formatJsonInParts(rest)) {
    if (last !== null) yield last;
    last = part;
  }
  yield `${last!.slice(0, -2)},\n  "prompts": [`;
  for (let start = 0; start < prompts.length; start += ROWS_PER_PART) {
    const rows: string[] = [];
    for (let at = start; at < Math.min(prompts.length, start + ROWS_PER_PART); at += 1) rows.push(`    ${JSON.stringify(prompts[at])}`);
    yield `${start === 0 ? '\n' : ',\n'}${rows.join(',\n')}`;
  }
  yield `${prompts.length === 0 ? '' : '\n  '}]\n}\n`;
}

/** JSON text → a validated index; `path` names the file in errors. */
export function deserializeIndex(json: string, path: string): HistoryIndex {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw invalidIndexError(path, `it is not JSON (${describeJsonError(error)})`);
  }
  const result = validateIndex(value);
  if (!result.valid) throw invalidIndexError(path, result.errors.join('; '));
  return value as HistoryIndex;
}

/** Validate, then write atomically. */
export function writeIndex(index: HistoryIndex, path: string): void {
  writeFileAtomically(path, serializeIndexInParts(index));
}

/** The index at `path`; null when there is no file. Anything else that fails is an error naming the file. */
export function readIndex(path: string): HistoryIndex | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw new MoonError('unreadable', `cannot read the history index ${path}: ${(error as Error).message}`, { cause: error });
  }
  return deserializeIndex(text, path);
}

function invalidIndexError(path: string, why: string): MoonError {
  return new MoonError('unreadable', `${path} is not a valid history index: ${why}`, {
    hint: 'it was left as it is; move it aside (or name another --out) to write a new index',
  });
}
