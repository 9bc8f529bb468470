import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { listMarkerTypes, resolveMarkerConfig } from '../../src/markers/config.js';
import { DEFAULT_MARKER_CONFIG, MARKER_TYPES, extractMarkers } from '../../src/markers/extract.js';
import { makeTempDir } from '../helpers/cli.js';

/** The `markers` section of moon.toml: defaults, custom types, and errors that name the key. */
const dirs: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

function home(toml = ''): string {
  const dir = makeTempDir('moon-markers-config-');
  dirs.push(dir.cleanup);
  if (toml) writeFileSync(join(dir.path, 'moon.toml'), toml);
  return dir.path;
}

function loadError(toml: string): string {
  try {
    loadConfig({ home: home(toml), env: {} });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a config error');
}

describe('markers config', () => {
  test("defaults: seed 004's nine types, two lines of context", () => {
    const config = loadConfig({ home: home(), env: {} });
    expect(config.markers).toEqual({ defaults: true, patterns: [], context_lines: 2 });
    expect(resolveMarkerConfig(config.markers)).toEqual(DEFAULT_MARKER_CONFIG);
    expect(listMarkerTypes(resolveMarkerConfig(config.markers))).toEqual([...MARKER_TYPES]);
  });

  test('custom types beside the defaults; one named like a default replaces it; defaults can be dropped', () => {
    const config = loadConfig({
      home: home(`[markers]
context_lines = 1

[[markers.patterns]]
type = "risk"
pattern = '@/risk:\\s*(.+)'
priority = 9

[[markers.patterns]]
type = "todo"
pattern = '(?:^|\\n)TODO:\\s*(.+)'
`),
      env: {},
    });
    const resolved = resolveMarkerConfig(config.markers);
    expect(resolved.contextLines).toBe(1);
    expect(listMarkerTypes(resolved)).toEqual(['decision', 'breaking', 'security', 'bug', 'api', 'pattern', 'perf', 'ref', 'risk', 'todo']);
    expect(resolved.patterns.find((entry) => entry.type === 'todo')).toEqual({ type: 'todo', pattern: '(?:^|\\n)TODO:\\s*(.+)', priority: 5 });
    // A pattern without `@/` is searched in every text, not only those holding the tag.
    expect(extractMarkers('intro\nTODO: ship it\n@/todo: not this syntax any more\n@/risk: the disk', resolved).map((marker) => [marker.type, marker.content])).toEqual([
      ['todo', 'ship it'],
      ['risk', 'the disk'],
    ]);
    const only = resolveMarkerConfig({ ...config.markers, defaults: false });
    expect(listMarkerTypes(only)).toEqual(['risk', 'todo']);
  });

  test('a bad value is an error naming its key', () => {
    expect(loadError('[markers]\ncontext_lines = 9\n')).toMatch(/markers\.context_lines: .*5/);
    expect(loadError('[markers]\nkeep = true\n')).toMatch(/unknown key markers\.keep/);
    expect(loadError('[[markers.patterns]]\ntype = "Risk"\npattern = "@/risk: (.+)"\n')).toMatch(/markers\.patterns\.0\.type: must be a lower-case word/);
    expect(loadError('[[markers.patterns]]\ntype = "risk"\npattern = "@/risk: (.+"\n')).toMatch(/moon\.toml: markers\.patterns\.0\.pattern: is not a valid regular expression/);
    expect(loadError('[[markers.patterns]]\ntype = "risk"\npattern = "@/risk: .+"\n')).toMatch(/markers\.patterns\.0\.pattern: needs a capture group/);
    expect(loadError('[[markers.patterns]]\ntype = "risk"\npattern = "@/risk: (.+)"\npriority = 11\n')).toMatch(/markers\.patterns\.0\.priority: /);
    expect(loadError('[[markers.patterns]]\npattern = "@/risk: (.+)"\n')).toMatch(/markers\.patterns\.0\.type: /);
  });
});
