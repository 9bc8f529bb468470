import { describe, expect, test } from 'vitest';
import { describeToolCall, stringifyToolOutput } from '../../src/sources/tool-input.js';

describe('describeToolCall', () => {
  test('a shell tool reads as its command', () => {
    expect(describeToolCall('Bash', { command: 'npm test', description: 'Run tests', timeout: 60000 })).toEqual({
      text: 'npm test',
      target: 'npm test',
    });
    expect(describeToolCall('exec_command', '{"cmd":"ls -la","workdir":"/w"}')).toEqual({ text: 'ls -la', target: 'ls -la' });
  });

  test('argv commands show the script a shell ran, or the joined argv', () => {
    expect(describeToolCall('shell', { command: ['bash', '-lc', 'cargo build --release'] }).text).toBe('cargo build --release');
    expect(describeToolCall('local_shell', { type: 'exec', command: ['git', 'commit', '-m', 'fix bug'] }).text).toBe(
      'git commit -m "fix bug"',
    );
  });

  test('a multi-line command targets its first line', () => {
    expect(describeToolCall('Bash', { command: 'cd /w\nmake all' })).toEqual({ text: 'cd /w\nmake all', target: 'cd /w' });
  });

  test('a file tool reads as its path plus short other arguments', () => {
    const big = 'x'.repeat(5000);
    const write = describeToolCall('Write', { file_path: '/w/src/app.ts', content: big });
    expect(write.target).toBe('/w/src/app.ts');
    expect(write.text.startsWith('/w/src/app.ts\ncontent: xxx')).toBe(true);
    expect(write.text.length).toBeLessThan(300);
    expect(describeToolCall('Read', { file_path: '/w/a.md' })).toEqual({ text: '/w/a.md', target: '/w/a.md' });
    expect(describeToolCall('read', { path: '/w/a.md', offset: 10, limit: 5 }).text).toBe('/w/a.md\noffset: 10\nlimit: 5');
  });

  test('an apply_patch input names the files it touches', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: src/b.ts\n+new\n*** End Patch';
    expect(describeToolCall('apply_patch', patch)).toEqual({
      text: 'Update File: src/a.ts\nAdd File: src/b.ts',
      target: 'src/a.ts',
    });
  });

  test('unknown tools become compact key: value lines', () => {
    expect(describeToolCall('TaskUpdate', { taskId: '1', status: 'done', extra: null, list: [1, 2] })).toEqual({
      text: 'taskId: 1\nstatus: done\nlist: [1,2]',
      target: null,
    });
    expect(describeToolCall('WebSearch', { query: 'vitest carry' })).toEqual({ text: 'query: vitest carry', target: 'vitest carry' });
    expect(describeToolCall('WebFetch', '{"url":"https://example.com","prompt":"summarise"}').target).toBe('https://example.com');
  });

  test('empty or missing input reads as the tool name', () => {
    expect(describeToolCall('read', {})).toEqual({ text: 'read', target: null });
    expect(describeToolCall('read', undefined)).toEqual({ text: 'read', target: null });
    expect(describeToolCall('read', '')).toEqual({ text: 'read', target: null });
  });

  test('a JSON string that does not parse is kept as text', () => {
    expect(describeToolCall('lookup', '{broken')).toEqual({ text: '{broken', target: null });
  });

  test('long values are bounded', () => {
    const described = describeToolCall('Task', { prompt: 'p'.repeat(5000) });
    expect(described.text.length).toBeLessThan(600);
    expect(described.text.endsWith('…')).toBe(true);
  });
});

describe('stringifyToolOutput', () => {
  test('strings pass through untouched', () => {
    expect(stringifyToolOutput('a\\nb "q"')).toBe('a\\nb "q"');
  });

  test('text and output_text blocks join by line; binary blocks become markers', () => {
    expect(
      stringifyToolOutput([
        { type: 'text', text: 'one' },
        { type: 'output_text', text: 'two' },
        { type: 'image', source: { type: 'base64', data: 'AAAA' } },
        { type: 'tool_reference', tool_name: 'TaskGet' },
        'three',
      ]),
    ).toBe('one\ntwo\n[image]\n[tool_reference: TaskGet]\nthree');
  });

  test('objects become readable text', () => {
    expect(stringifyToolOutput({ content: [{ type: 'text', text: 'nested' }] })).toBe('nested');
    expect(stringifyToolOutput({ output: 'done', metadata: { exit_code: 0 } })).toBe('done');
    expect(stringifyToolOutput({ stdout: 'hi', stderr: '', code: 0 })).toBe('stdout: hi\ncode: 0');
  });

  test('nothing is an empty string', () => {
    expect(stringifyToolOutput(null)).toBe('');
    expect(stringifyToolOutput(undefined)).toBe('');
    expect(stringifyToolOutput([])).toBe('');
    expect(stringifyToolOutput(7)).toBe('7');
  });
});
