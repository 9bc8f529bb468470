import { type JsonPath, createJsonSplitter } from './json-split.js';
import {
  type Json,
  type LinkablePrompt,
  type ParsedHistory,
  type ParsedPrompt,
  type PuffinHistoryOf,
  assemblePuffinHistory,
  isPuffinHistory,
  readPuffinPrompt,
} from './puffin-history.js';

/**
 * A Puffin history read as its bytes stream past (seed 004: files over 50 MB): the document is walked down to
 * `branches.<id>.prompts`, each prompt is parsed alone and read into its parsed form at once, and the raw prompt
 * is let go. Every other value is parsed alone too and kept as the whole parse keeps it. The end is the same
 * assembly the whole parse uses (`assemblePuffinHistory`), so both give the same view.
 *
 * What is kept of a prompt is the caller's choice: by default the ParsedPrompt (text included); a caller that
 * needs less (the RLM index keeps hashes and byte ranges, not text) passes its own `readPrompt`, which is given
 * the parsed prompt value and where its bytes lie in the file.
 */
export interface PuffinStreamReader<P = ParsedPrompt> {
  write(chunk: Uint8Array): void;
  /** The parsed view, or null when the document is well-formed JSON but no Puffin history. Throws on bad JSON. */
  end(): PuffinHistoryOf<P> | null;
}

/** A prompt's parsed JSON value into what the reader keeps of it, or the reason it cannot be read. */
export type ReadPromptValue<P> = (value: unknown, branchId: string, position: number, bytes: { start: number; end: number }) => P | string;

interface BranchDraft<P> {
  /** The branch object's own members (`prompts` stands for an array when the branch has one), or what stands
   * in the branch's place when it is no object. */
  fields: Json;
  prompts: Array<P | string>;
}

/** Set a member as JSON.parse would: an own property even for `__proto__`, a repeated key keeping its place. */
function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const isPromptsPath = (path: JsonPath): boolean => path.length === 3 && path[0] === 'branches' && path[2] === 'prompts';

export function createPuffinStreamReader(): PuffinStreamReader;
export function createPuffinStreamReader<P extends LinkablePrompt>(readPrompt: ReadPromptValue<P>): PuffinStreamReader<P>;
export function createPuffinStreamReader<P extends LinkablePrompt>(readPrompt?: ReadPromptValue<P>): PuffinStreamReader<P> {
  const read = readPrompt ?? (readPuffinPrompt as unknown as ReadPromptValue<P>);
  const top: Json = {};
  let rootIsObject = false;
  let branches: Map<string, BranchDraft<P>> | null = null;

  const splitter = createJsonSplitter({
    descend(path, kind) {
      if (path.length === 0) return kind === 'object';
      if (path[0] !== 'branches') return false;
      if (path.length === 1 || path.length === 2) return kind === 'object';
      return isPromptsPath(path) && kind === 'array';
    },
    enter(path) {
      if (path.length === 0) {
        rootIsObject = true;
      } else if (path.length === 1) {
        // A repeated `branches` key replaces the first, as in a whole parse; the key keeps its place.
        branches = new Map();
        setOwn(top, 'branches', null);
      } else if (path.length === 2) {
        branches!.set(path[1] as string, { fields: {}, prompts: [] });
      } else {
        const branch = branches!.get(path[1] as string)!;
        branch.prompts = [];
        setOwn(branch.fields, 'prompts', []);
      }
    },
    value(path, text, start, end) {
      // Every value is parsed, kept or not: a malformed one fails the stream as it fails a whole parse.
      const value = JSON.parse(text) as unknown;
      if (path.length === 4) {
        const branchId = path[1] as string;
        branches!.get(branchId)!.prompts.push(read(value, branchId, path[3] as number, { start, end }));
      } else if (path.length === 2) {
        // A branch that is no object: kept as it is, so the history is judged as a whole parse judges it.
        branches!.set(path[1] as string, { fields: value as Json, prompts: [] });
      } else if (path.length === 3) {
        setOwn(branches!.get(path[1] as string)!.fields, path[2] as string, value);
      } else if (path.length === 1) {
        if (path[0] === 'branches') branches = null;
        setOwn(top, path[0] as string, value);
      }
    },
  });

  return {
    write: (chunk) => splitter.write(chunk),
    end() {
      splitter.end();
      if (!rootIsObject) return null;
      const prompts = new Map<string, Array<P | string>>();
      if (branches !== null) {
        const skeleton: Json = {};
        for (const [id, branch] of branches as Map<string, BranchDraft<P>>) {
          setOwn(skeleton, id, branch.fields);
          const fields = branch.fields as unknown;
          if (typeof fields === 'object' && fields !== null && Array.isArray(branch.fields.prompts)) prompts.set(id, branch.prompts);
        }
        setOwn(top, 'branches', skeleton);
      }
      if (!isPuffinHistory(top)) return null;
      return assemblePuffinHistory(top, prompts);
    },
  };
}

/** Bytes handed to the reader at a time when the whole file is in memory already (views, not copies). */
const SLICE_BYTES = 1 << 20;

/** A history held in memory, read by streaming (no second copy as text, no raw prompt tree); null: not Puffin. */
export function streamPuffinHistory(bytes: Uint8Array): ParsedHistory | null {
  const reader = createPuffinStreamReader();
  for (let start = 0; start < bytes.length; start += SLICE_BYTES) reader.write(bytes.subarray(start, start + SLICE_BYTES));
  return reader.end();
}
