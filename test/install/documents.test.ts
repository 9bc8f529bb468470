import { describe, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { openDocument } from '../../src/install/run-install.js';
import { fixture } from './helpers.js';

const MOON = { command: '/usr/local/bin/node', args: ['/opt/moon/bin/moon.js', 'mcp'] };

/** Set `path`, check the value is there and the rest of the text untouched, then remove it: the original bytes. */
function roundTrip(format: 'json' | 'json5' | 'toml', text: string, path: string[], value: unknown): string {
  const doc = openDocument(format, 'config', text);
  const before = structuredClone(doc.data);
  doc.set(path, value);
  const added = doc.text;
  expect(doc.get(path)).toEqual(value);
  doc.remove(path);
  expect(doc.text).toBe(text);
  expect(doc.data).toEqual(before);
  return added;
}

function malformed(format: 'json' | 'json5' | 'toml', text: string): MoonError {
  try {
    openDocument(format, '/home/u/config', text);
  } catch (error) {
    expect(error).toBeInstanceOf(MoonError);
    return error as MoonError;
  }
  throw new Error('accepted a malformed file');
}

describe('JSON (comments, trailing commas)', () => {
  test('a key is added after the last one, in the file’s indentation, and removed to the same bytes', () => {
    const text = fixture('claude-state.json');
    const added = roundTrip('json', text, ['mcpServers', 'moon'], { type: 'stdio', ...MOON });
    expect(added).toContain('  },\n    "moon": {\n      "type": "stdio",\n      "command": "/usr/local/bin/node",\n      "args": ["/opt/moon/bin/moon.js", "mcp"]\n    }\n  },\n  "userID"');
    expect(added.startsWith(text.slice(0, text.indexOf('"github"')))).toBe(true);
  });

  test('comments, a trailing comma, CRLF and a compact line around the edit stay as written', () => {
    const text = fixture('claude-settings.jsonc').replace(/\n/g, '\r\n');
    const added = roundTrip('json', text, ['hooks', 'SessionEnd'], [{ hooks: [{ type: 'command', command: 'x' }] }]);
    expect(added).toContain('{ "matcher": "Bash", "hooks": [ { "type": "command", "command": "~/bin/guard.sh", "timeout": 5 } ] }\r\n    ],\r\n    "SessionEnd": [\r\n');
    expect(added).not.toMatch(/[^\r]\n/);
    expect(added).toContain('"model": "opus", /* the big one */');
  });

  test('items are appended to a list whose last item has a trailing comma, keeping it', () => {
    const text = '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{ "hooks": [] },\n\t\t],\n\t},\n}\n';
    const doc = openDocument('json', 'settings.json', text);
    doc.append(['hooks', 'Stop'], { hooks: [{ type: 'command', command: 'moon' }] });
    expect(doc.text).toBe('{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{ "hooks": [] },\n\t\t\t{\n\t\t\t\t"hooks": [\n\t\t\t\t\t{\n\t\t\t\t\t\t"type": "command",\n\t\t\t\t\t\t"command": "moon"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t},\n\t\t],\n\t},\n}\n');
    doc.remove(['hooks', 'Stop', 1]);
    expect(doc.text).toBe(text);
  });

  test('an inline object gets the key inline; an empty file becomes an object', () => {
    expect(roundTrip('json', '{"a": 1}', ['b'], { c: [1, 2] })).toBe('{"a": 1, "b": { "c": [1, 2] }}');
    const doc = openDocument('json', 'new.json', '');
    doc.set(['mcpServers', 'moon'], MOON);
    expect(doc.text).toBe('{\n  "mcpServers": {\n    "moon": {\n      "command": "/usr/local/bin/node",\n      "args": ["/opt/moon/bin/moon.js", "mcp"]\n    }\n  }\n}\n');
  });

  test('a malformed file is refused with its line and column', () => {
    const error = malformed('json', '{\n  "a": 1,\n  "b": ]\n}\n');
    expect(error.message).toMatch(/^\/home\/u\/config:3:8: not valid JSON/);
    expect(error.hint).toContain('nothing was written');
    expect(malformed('json', '[1, 2]').message).toContain('the top level should be a JSON object');
  });
});

describe('JSON5 (OpenClaw)', () => {
  test('bare keys, single quotes, comments and trailing commas: the server goes in in the same style, and out again', () => {
    const text = fixture('openclaw.json5');
    const added = roundTrip('json5', text, ['mcp', 'servers', 'moon'], MOON);
    expect(added).toContain("      context7: { command: 'npx', args: ['-y', '@upstash/context7-mcp'], },\n      moon: {\n        command: \"/usr/local/bin/node\",\n        args: [\"/opt/moon/bin/moon.js\", \"mcp\"]\n      },\n    },\n");
  });

  test('objects created on the way are removed with it; CRLF and quoted keys are kept', () => {
    const text = '{\r\n  "gateway": { "port": 18789 }, // local\r\n  "models": {}\r\n}\r\n';
    const doc = openDocument('json5', 'openclaw.json', text);
    doc.set(['mcp', 'servers', 'moon'], MOON);
    expect(doc.text).toBe(
      '{\r\n  "gateway": { "port": 18789 }, // local\r\n  "models": {},\r\n  "mcp": {\r\n    "servers": {\r\n      "moon": {\r\n        "command": "/usr/local/bin/node",\r\n        "args": ["/opt/moon/bin/moon.js", "mcp"]\r\n      }\r\n    }\r\n  }\r\n}\r\n',
    );
    doc.remove(['mcp', 'servers', 'moon']);
    doc.remove(['mcp', 'servers']);
    doc.remove(['mcp']);
    expect(doc.text).toBe(text);
  });

  test('a key in the middle of an object is removed with its line only', () => {
    const text = "{\n  a: 1, // one\n  moon: { command: 'x' },\n  // about b\n  b: 2,\n}\n";
    const doc = openDocument('json5', 'c.json5', text);
    doc.remove(['moon']);
    expect(doc.text).toBe("{\n  a: 1, // one\n  // about b\n  b: 2,\n}\n");
  });

  test('a malformed file is refused with its line and column', () => {
    const error = malformed('json5', "{\n  mcp: { servers: { a: 'x' } },\n  oops\n}\n");
    expect(error.message).toMatch(/^\/home\/u\/config:4:1: not valid JSON5/);
  });
});

describe('TOML (Codex)', () => {
  test('the server is appended as its own table after the other tables and comments, and cut out to the same bytes', () => {
    const text = fixture('codex-config.toml');
    const added = roundTrip('toml', text, ['mcp_servers', 'moon'], { ...MOON, startup_timeout_sec: 30 });
    expect(added).toBe(`${text}\n[mcp_servers.moon]\ncommand = "/usr/local/bin/node"\nargs = ["/opt/moon/bin/moon.js", "mcp"]\nstartup_timeout_sec = 30\n`);
  });

  test('CRLF, no final line ending, and a Windows path', () => {
    const text = 'model = "o3"\r\n\r\n[tui]\r\nnotifications = true # ping';
    const doc = openDocument('toml', 'config.toml', text);
    doc.set(['mcp_servers', 'moon'], { command: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\moon\\bin\\moon.js', 'mcp'] });
    expect(doc.text).toBe('model = "o3"\r\n\r\n[tui]\r\nnotifications = true # ping\r\n\r\n[mcp_servers.moon]\r\ncommand = "C:\\\\Program Files\\\\nodejs\\\\node.exe"\r\nargs = ["C:\\\\moon\\\\bin\\\\moon.js", "mcp"]\r\n');
    expect(doc.get(['mcp_servers', 'moon', 'command'])).toBe('C:\\Program Files\\nodejs\\node.exe');
  });

  test('inside an inline mcp_servers table, toml-patch edits in place', () => {
    const text = 'mcp_servers = { gh = { command = "gh" } }\n';
    const doc = openDocument('toml', 'config.toml', text);
    doc.set(['mcp_servers', 'moon'], MOON);
    expect(doc.get(['mcp_servers', 'gh'])).toEqual({ command: 'gh' });
    expect(doc.get(['mcp_servers', 'moon'])).toEqual(MOON);
    doc.remove(['mcp_servers', 'moon']);
    expect(doc.get(['mcp_servers'])).toEqual({ gh: { command: 'gh' } });
  });

  test('a table added after moon’s stays when moon’s is cut out', () => {
    const doc = openDocument('toml', 'config.toml', 'model = "o3"\n');
    doc.set(['mcp_servers', 'moon'], MOON);
    const edited = `${doc.text}\n# mine\n[profiles.deep]\nmodel = "o3-pro"\n`;
    const again = openDocument('toml', 'config.toml', edited);
    again.remove(['mcp_servers', 'moon']);
    expect(again.text).toBe('model = "o3"\n\n# mine\n[profiles.deep]\nmodel = "o3-pro"\n');
  });

  test('a malformed file is refused with its line and column', () => {
    const error = malformed('toml', 'model = "o3"\n[mcp_servers\ncommand = "x"\n');
    expect(error.message).toMatch(/^\/home\/u\/config:3:1: not valid TOML \(table header must be single-line\)/i);
  });
});
