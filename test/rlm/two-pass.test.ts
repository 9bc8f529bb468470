import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { DEFAULT_MARKER_CONFIG, extractMarkers } from '../../src/markers/extract.js';
import { renderTurn } from '../../src/rlm/content.js';
import { hashPrompt } from '../../src/rlm/hashes.js';
import { openHistoryFile } from '../../src/rlm/history-file.js';
import { outlineHistory, type HistoryOutline } from '../../src/rlm/outline.js';
import { createPromptLocator, readPromptsBack } from '../../src/rlm/prompt-text.js';
import { parsePuffinHistory, type ParsedHistory } from '../../src/sources/puffin-history.js';
import { buildHistory, buildSampleHistory, countQuarterChars, type Json } from './history-builder.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'moon-rlm-two-pass-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Text a byte range must carry across whole: multi-byte UTF-8 (two, three and four bytes, one cut by no chunk
 * boundary in particular), escapes of every kind, a raw line separator, a marker after an escaped newline.
 */
const AWKWARD = [
  'naïve café — 東京の設定 🚀🧪 done',
  'quotes " and \\ backslashes \\\\" and \t tabs\r\nand CRLF',
  'escaped \u0000 nul, \u001f unit separator, \u2028 line separator, \ud83d\ude00 pair',
  `a long line ${'ß'.repeat(5_000)} then\n@/decision: keep the é in ids`,
];

function buildAwkwardHistory(): Json {
  const history = buildHistory([
    {
      id: 'brånch-1',
      prompts: AWKWARD.map((content, i) => ({ id: `p-${i}-ü`, parentId: i === 0 ? null : `p-${i - 1}-ü`, content, response: `${AWKWARD[(i + 1) % AWKWARD.length]} ✓`, title: `T ${i} 🚀` })),
    },
    { id: 'b2', prompts: [{ id: 'q1', content: 'plain' }, { id: 'q2', parentId: 'gone', content: AWKWARD[0]!, response: null }] },
  ]) as { branches: Record<string, { prompts: unknown[] }> };
  // Entries a reader skips, each for its reason, and an id that repeats one already read.
  history.branches.b2!.prompts.push(42, { id: 'no-content', timestamp: 1 }, { id: 'p-0-ü', content: 'again', timestamp: 5 });
  return history;
}

function writeHistory(value: unknown, form: { indent?: number; bom?: boolean } = {}): { path: string; whole: ParsedHistory } {
  const text = JSON.stringify(value, null, form.indent ?? 2);
  const path = join(dir, 'history.json');
  writeFileSync(path, `${form.bom ? '\uFEFF' : ''}${text}`);
  return { path, whole: parsePuffinHistory(JSON.parse(text)) };
}

async function outline(path: string, deferCounts = false): Promise<HistoryOutline> {
  const file = openHistoryFile(path);
  try {
    return (await outlineHistory(file, { countTokens: countQuarterChars, deferCounts, markerConfig: DEFAULT_MARKER_CONFIG })).outline;
  } finally {
    file.close();
  }
}

describe('the outline (first pass)', () => {
  it.each([
    ['indented', { indent: 2 }],
    ['on one line, after a byte order mark', { indent: 0, bom: true }],
  ])('keeps of every prompt what a whole parse gives, without its text (%s)', async (_name, form) => {
    for (const value of [buildAwkwardHistory(), buildSampleHistory()]) {
      const { path, whole } = writeHistory(value, form);
      const outlined = await outline(path);
      expect(outlined.skipped).toEqual(whole.skipped);
      expect(outlined.dateRange).toEqual(whole.dateRange);
      expect(outlined.branches.map((branch) => [branch.id, branch.name, branch.handoffSummary])).toEqual(whole.branches.map((branch) => [branch.id, branch.name, branch.handoffSummary]));
      const expected = whole.branches.flatMap((branch) => branch.prompts);
      const got = outlined.branches.flatMap((branch) => branch.prompts);
      expect(got.map((prompt) => prompt.id)).toEqual(expected.map((prompt) => prompt.id));
      const [counts] = [await countQuarterChars(expected.map(renderTurn))];
      got.forEach((prompt, index) => {
        const parsed = expected[index]!;
        const { id, branchId, parentId, parentMissing, children, depth, rootId, timestamp, position } = parsed;
        expect(prompt).toMatchObject({ id, branchId, parentId, parentMissing, children, depth, rootId, timestamp, position });
        expect(prompt.response).toEqual(parsed.response === null ? null : { timestamp: parsed.response.timestamp });
        expect(prompt.hash).toBe(hashPrompt(parsed));
        expect(prompt.tokens).toBe(counts[index]);
        const markers = [
          ...extractMarkers(parsed.content).map((marker) => ({ ...marker, sourceField: 'prompt' })),
          ...extractMarkers(parsed.response?.content ?? '').map((marker) => ({ ...marker, sourceField: 'response' })),
        ].map(({ type, content, sourceField, importance, lineNumber, context }) => ({ type, content, sourceField, importance, lineNumber, context }));
        expect(prompt.markers ?? []).toEqual(markers);
        expect(Object.values(prompt)).not.toContain(parsed.content);
      });
    }
  });

  it('leaves every count open (NaN) when asked to, for an incremental run to fill', async () => {
    const { path } = writeHistory(buildSampleHistory());
    const outlined = await outline(path, true);
    expect(outlined.branches.flatMap((branch) => branch.prompts).every((prompt) => Number.isNaN(prompt.tokens))).toBe(true);
  });

  it('names the file when it is not JSON, or not a Puffin history', async () => {
    const path = join(dir, 'history.json');
    writeFileSync(path, '{"branches": {"a": {"prompts": [{"id": "x",}]}}}');
    await expect(outline(path)).rejects.toThrow(`${path}: not valid JSON`);
    writeFileSync(path, '{"other": 1}');
    await expect(outline(path)).rejects.toThrow(`${path}: not a Puffin history`);
  });
});

describe('prompts read back by byte range (second pass)', () => {
  it('are the prompts a whole parse reads, in the order asked, whatever the bytes between them', async () => {
    for (const form of [{ indent: 2 }, { indent: 0, bom: true }]) {
      const { path, whole } = writeHistory(buildAwkwardHistory(), form);
      const outlined = await outline(path);
      const file = openHistoryFile(path);
      try {
        const locator = createPromptLocator(outlined);
        const expected = whole.branches.flatMap((branch) => branch.prompts);
        const ids = expected.map((prompt) => prompt.id).reverse();
        const back = readPromptsBack(file, locator, ids);
        expect(back.map((prompt) => prompt.id)).toEqual(ids);
        for (const prompt of back) {
          const parsed = expected.find((item) => item.id === prompt.id)!;
          expect(prompt).toMatchObject({ id: parsed.id, branchId: parsed.branchId, position: parsed.position, title: parsed.title, content: parsed.content, timestamp: parsed.timestamp, response: parsed.response });
        }
        // One prompt alone, and the same prompt twice.
        expect(readPromptsBack(file, locator, ['p-3-ü', 'p-3-ü']).map((prompt) => prompt.content)).toEqual([AWKWARD[3], AWKWARD[3]]);
      } finally {
        file.close();
      }
    }
  });

  it('keep reading the file the run opened when a save renames a new one over it', async () => {
    const { path } = writeHistory(buildAwkwardHistory());
    const outlined = await outline(path);
    const file = openHistoryFile(path);
    try {
      const other = join(dir, 'saved.json');
      writeFileSync(other, JSON.stringify(buildSampleHistory()));
      renameSync(other, path);
      expect(readPromptsBack(file, createPromptLocator(outlined), ['p-1-ü'])[0]!.content).toBe(AWKWARD[1]);
      expect(() => file.checkUnchanged()).not.toThrow();
    } finally {
      file.close();
    }
  });

  it('fail, naming the file, when it was rewritten in place since the outline: never a wrong text', async () => {
    const { path } = writeHistory(buildAwkwardHistory());
    const file = openHistoryFile(path);
    try {
      const outlined = await outline(path);
      writeFileSync(path, readFileSync(path, 'utf8').replace('naïve café', 'a longer, rewritten opening line'));
      const error = (() => {
        try {
          readPromptsBack(file, createPromptLocator(outlined), ['p-2-ü', 'p-3-ü']);
          return null;
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(MoonError);
      expect((error as MoonError).message).toBe(`${path} changed while it was being indexed`);
      expect(() => file.checkUnchanged()).toThrow(`${path} changed while it was being indexed`);
    } finally {
      file.close();
    }
  });
});
