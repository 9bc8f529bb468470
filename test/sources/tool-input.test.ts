import { describe, expect, test } from 'vitest';
import { renderJsonText } from '../../src/sources/readable-json.js';
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
      text: 'taskId: 1\nstatus: done\nlist: 1, 2',
      target: null,
    });
    expect(describeToolCall('WebSearch', { query: 'vitest carry' })).toEqual({ text: 'query: vitest carry', target: 'vitest carry' });
    expect(describeToolCall('WebFetch', '{"url":"https://example.com","prompt":"summarise"}').target).toBe('https://example.com');
  });

  test('edits and writes read as the diff they make, targeting the path', () => {
    expect(describeToolCall('Edit', { file_path: '/w/a.ts', old_string: 'const a = 1;', new_string: 'const a = 2;\nexport { a };', replace_all: false })).toEqual({
      text: 'Update File: /w/a.ts\n- const a = 1;\n+ const a = 2;\n+ export { a };',
      target: '/w/a.ts',
    });
    const multi = describeToolCall('MultiEdit', {
      file_path: '/w/a.ts',
      edits: [
        { old_string: 'foo()', new_string: 'fooBar()' },
        { old_string: 'let x', new_string: 'const x', replace_all: true },
      ],
    });
    expect(multi.text).toBe('Update File: /w/a.ts\n- foo()\n- let x\n+ fooBar()\n+ const x');
    expect(multi.text).not.toContain('old_string');
    expect(describeToolCall('Write', { file_path: '/w/new.ts', content: 'export const clock = makeClock();\n' })).toEqual({
      text: 'Add File: /w/new.ts\n+ export const clock = makeClock();',
      target: '/w/new.ts',
    });
    expect(describeToolCall('NotebookEdit', { notebook_path: '/w/n.ipynb', cell_id: 'c1', new_source: 'df.head()', edit_mode: 'replace' }).text).toBe(
      'Update File: /w/n.ipynb\n+ df.head()',
    );
  });

  test('OpenClaw edit and write calls read the same way', () => {
    expect(describeToolCall('edit', { path: '/w/a.md', oldText: 'old line', newText: 'new line' }).text).toBe(
      'Update File: /w/a.md\n- old line\n+ new line',
    );
    expect(describeToolCall('write', { path: '/w/b.md', content: '# Plan' }).text).toBe('Add File: /w/b.md\n+ # Plan');
  });

  test('a huge write stays a bounded diff', () => {
    const write = describeToolCall('Write', { file_path: '/w/big.ts', content: 'x'.repeat(5000) + '\n'.repeat(5000) });
    expect(write.target).toBe('/w/big.ts');
    expect(write.text.length).toBeLessThan(400);
  });

  test('nested arguments read as key: value lines, never as JSON', () => {
    const todo = describeToolCall('TodoWrite', {
      todos: [
        { content: 'Write tests', status: 'in_progress', activeForm: 'Writing tests' },
        { content: 'Ship', status: 'pending' },
      ],
    });
    expect(todo.text).toBe(
      'todos:\n  - content: Write tests\n    status: in_progress\n    activeForm: Writing tests\n  - content: Ship\n    status: pending',
    );
    const message = describeToolCall('SendMessage', { to: 'alice', message: 'round 2 "go"', routing: { target: '@alice' } });
    expect(message.text).toBe('to: alice\nmessage: round 2 "go"\nrouting:\n  target: @alice');
    for (const text of [todo.text, message.text]) expect(text).not.toMatch(/\{"|\\"|\\n/);
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
    expect(stringifyToolOutput({ task: { id: '1', subject: 'Research' } })).toBe('task:\n  id: 1\n  subject: Research');
  });

  test('nothing is an empty string', () => {
    expect(stringifyToolOutput(null)).toBe('');
    expect(stringifyToolOutput(undefined)).toBe('');
    expect(stringifyToolOutput([])).toBe('');
    expect(stringifyToolOutput(7)).toBe('7');
  });
});

describe('renderJsonText', () => {
  test('a wholly JSON result becomes key: value lines', () => {
    expect(renderJsonText('{"success":true,"taskId":"2","updatedFields":["owner","status"]}', 100)).toBe(
      'success: true\ntaskId: 2\nupdatedFields: owner, status',
    );
  });

  test('a labelled JSON line becomes the label and readable items; other lines stay as written', () => {
    const text = 'Web search results for query: "vitest"\n\nLinks: [{"title":"Vitest","url":"https://vitest.dev"}]\n\nSee {"a": 1} inline.';
    expect(renderJsonText(text, 100)).toBe(
      'Web search results for query: "vitest"\n\nLinks:\n- title: Vitest\n  url: https://vitest.dev\n\nSee {"a": 1} inline.',
    );
  });

  test('text that only looks like JSON is kept', () => {
    expect(renderJsonText('{not json}', 100)).toBe('{not json}');
    expect(renderJsonText('Links: [broken', 100)).toBe('Links: [broken');
  });
});
