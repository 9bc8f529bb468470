import { describe, expect, it } from 'vitest';
import { describePatchFiles, DIFF_LINES, isPatchText, readPatchCall, renderDiffBlock } from '../../src/normalize/diff.js';
import { parseProjection, renderProjection } from '../../src/project/index.js';
import { buildBasicDoc, makeEntry } from './fixture.js';

/** The text src/sources/patch-text.ts renders for an Edit and for a two-file apply_patch. */
const EDIT = "Update File: src/clock.ts\n- const now = Date.now();\n+ vi.setSystemTime(new Date('2026-02-21'));";
const PATCH = [
  'Update File: src/cart.ts',
  '- items.push(item);',
  '+ if (!items.some((i) => i.id === item.id)) items.push(item);',
  'Add File: test/cart.test.ts',
  "+ import { describe, expect, it } from 'vitest';",
  "+ describe('cart', () => {",
].join('\n');

describe('readPatchCall', () => {
  it('recognises rendered patches only', () => {
    expect(isPatchText(EDIT)).toBe(true);
    expect(isPatchText(`\n${PATCH}`)).toBe(true);
    expect(isPatchText('npm test')).toBe(false);
    expect(isPatchText('Read src/clock.ts\nUpdate File: x')).toBe(false);
    expect(readPatchCall('git diff')).toBeNull();
  });

  it('names the files and keeps their changed lines, with headers when several files changed', () => {
    const single = readPatchCall(EDIT);
    expect(single && describePatchFiles(single)).toBe('Update src/clock.ts');
    expect(single?.lines).toEqual(['- const now = Date.now();', "+ vi.setSystemTime(new Date('2026-02-21'));"]);
    const two = readPatchCall(PATCH);
    expect(two && describePatchFiles(two)).toBe('Update src/cart.ts, Add test/cart.test.ts');
    expect(two?.lines[0]).toBe('Update File: src/cart.ts');
    expect(two?.lines[3]).toBe('Add File: test/cart.test.ts');
  });

  it('bounds lines, line length and the file list', () => {
    const body = Array.from({ length: 40 }, (_, i) => `+ line ${i} ${'x'.repeat(300)}`).join('\n');
    const call = readPatchCall(`Add File: big.ts\n${body}\n… 20 more lines`);
    expect(call?.lines).toHaveLength(DIFF_LINES);
    expect(call?.moreLines).toBe(48);
    expect(Math.max(...(call?.lines ?? []).map((line) => Array.from(line).length))).toBeLessThanOrEqual(160);
    const files = Array.from({ length: 8 }, (_, i) => `Update File: f${i}.ts\n+ x`).join('\n');
    const many = readPatchCall(`${files}\n… 3 more files`);
    expect(many && describePatchFiles(many)).toBe('Update f0.ts, Update f1.ts, Update f2.ts, Update f3.ts, Update f4.ts +6 more files');
  });

  it('fences the diff longer than any backtick run inside', () => {
    const call = readPatchCall('Update File: README.md\n- ```bash\n+ ````sh');
    const block = call ? renderDiffBlock(call) : [];
    expect(block[0]).toBe('  `````diff');
    expect(block.at(-1)).toBe('  `````');
    expect(block.every((line) => line.startsWith('  '))).toBe(true);
  });
});

describe('patches in the projection', () => {
  const doc = buildBasicDoc();
  const edit = makeEntry({
    line: 15,
    ts: Date.parse('2026-04-04T16:21:00Z'),
    role: 'tool',
    toolName: 'apply_patch',
    toolTarget: 'src/cart.ts',
    text: PATCH,
    priority: 'high',
    result: 'Success. Updated the following files:\nM src/cart.ts\nA test/cart.test.ts',
    exitCode: 0,
    durationMs: 120,
  });
  const output = renderProjection({ ...doc, entries: [...doc.entries, edit] });

  it('shows the files in the Timeline and the call plus a diff block in Tool Activity', () => {
    expect(output).toContain('| tool:apply_patch | `Update src/cart.ts, Add test/cart.test.ts` → exit 0 in 120 ms: Success. Updated the following files: |');
    const activity = output.slice(output.indexOf('### apply_patch'));
    expect(activity).toContain(
      [
        '- [16:21:00Z] **high** `Update src/cart.ts, Add test/cart.test.ts` → exit 0 in 120 ms: Success. Updated the following files: M src/cart.ts A test/cart.test.ts',
        '  ```diff',
        '  Update File: src/cart.ts',
        '  - items.push(item);',
        '  + if (!items.some((i) => i.id === item.id)) items.push(item);',
        '  Add File: test/cart.test.ts',
        "  + import { describe, expect, it } from 'vitest';",
        "  + describe('cart', () => {",
        '  ```',
      ].join('\n'),
    );
    expect(output).toContain('- Edited src/cart.ts; wrote test/cart.test.ts');
  });

  it('parses back: the diff lines are not read as list items', () => {
    const signals = parseProjection(output).signals ?? [];
    const patch = signals.filter((s) => s.role === 'tool:apply_patch');
    expect(patch).toHaveLength(1);
    expect(patch[0]?.text).toContain('`Update src/cart.ts, Add test/cart.test.ts` →');
  });
});
