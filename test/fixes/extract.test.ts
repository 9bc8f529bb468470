import { describe, expect, test } from 'vitest';
import { extractFixEvents, normalizeTarget } from '../../src/fixes/extract.js';
import { createEntry, type Entry } from '../../src/model.js';

const NS = { namespace_id: 'github.com/acme/shop', repo: 'github.com/acme/shop', root: '/home/dev/shop' };
let n = 0;
function tool(name: string, target: string, fields: Partial<Entry> = {}): Entry {
  n += 1;
  return createEntry({ id: `e${n}`, key: `k${n}`, sessionId: 's', seq: n * 1000, line: n, ts: n, role: 'tool', text: target, toolName: name, toolTarget: target, ...fields });
}

describe('fix facts of one session', () => {
  test('commands are one check whatever the cd, redirection and output filter', () => {
    expect(normalizeTarget('cd /home/dev/shop && npx vitest run test/a.test.ts 2>&1 | tail -20')).toBe('npx vitest run test/a.test.ts');
    expect(normalizeTarget('  npx   vitest run test/a.test.ts ')).toBe('npx vitest run test/a.test.ts');
    expect(normalizeTarget('npm test 2>/dev/null | grep FAIL | head -3')).toBe('npm test');
  });

  test('a failed edit is no change; an interrupted command is neither a failure nor a pass', () => {
    const events = extractFixEvents('s', '/home/dev/shop', NS, [
      tool('Bash', 'npm test', { exitCode: 1, status: 'error', result: "Exit code 1\nTypeError: Cannot read properties of undefined (reading 'map')" }),
      tool('Edit', 'src/cart.ts', { status: 'error', result: '<tool_use_error>String to replace not found</tool_use_error>' }),
      tool('Bash', 'npm test', { status: 'interrupted' }),
      tool('Edit', 'src/cart.ts', { result: 'The file has been updated.' }),
      tool('Bash', 'npm test', { result: 'ok' }),
    ], () => 'h');
    expect(events.map((event) => event.kind)).toEqual(['error', 'edit', 'pass']);
    expect(events[1]).toMatchObject({ files: ['/home/dev/shop/src/cart.ts'], fileHashes: { '/home/dev/shop/src/cart.ts': 'h' } });
  });

  test('a failure with no recognisable error line is still a signature: the command', () => {
    const events = extractFixEvents('s', null, NS, [tool('Bash', 'make release VERSION=1.4.2', { exitCode: 2, result: 'make: *** [release] Error 2' })], () => null);
    expect(events).toEqual([expect.objectContaining({ kind: 'error', signature: 'command failed: make release VERSION=<n>', target: 'make release VERSION=1.4.2' })]);
  });

  test('apply_patch files, commits from git output, reverts and claims', () => {
    const patch = '*** Begin Patch\n*** Update File: src/cart.ts\n@@\n-a\n+b\n*** Add File: src/util.ts\n+x\n*** End Patch';
    const events = extractFixEvents('s', '/w', NS, [
      tool('apply_patch', '', { text: patch, toolTarget: null }),
      tool('exec_command', 'git commit -am fix', { exitCode: 0, result: '[fix/cart 0a1b2c3] fix\n 1 file changed' }),
      tool('exec_command', 'git revert --no-edit 9fceb02', { exitCode: 0, result: '[main 5e6f7a8] Revert "x"' }),
      createEntry({ id: 'm', key: 'm', sessionId: 's', seq: 99_000, line: 99, ts: 99, role: 'assistant', text: 'Done. Fixed by defaulting items in 0a1b2c3.' }),
    ], () => null);
    expect(events.find((event) => event.kind === 'edit')!.files).toEqual(['/w/src/cart.ts', '/w/src/util.ts']);
    expect(events.filter((event) => event.kind === 'commit').map((event) => event.commits)).toEqual([['0a1b2c3'], ['5e6f7a8']]);
    expect(events.find((event) => event.kind === 'revert')!.commits).toEqual(['9fceb02']);
    expect(events.find((event) => event.kind === 'claim')).toMatchObject({ commits: ['0a1b2c3'], text: 'Fixed by defaulting items in 0a1b2c3.' });
  });
});
