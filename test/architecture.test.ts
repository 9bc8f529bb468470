import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO } from './helpers/cli.js';

/**
 * The layering, checked on every import in src/: interfaces → library API (index.ts, moon.ts) → stages → store
 * ports. Only the composition root (moon.ts) picks an engine; only an engine's own folder talks to its driver.
 */
const SRC = join(REPO, 'src');
const ENGINES = ['store/sqlite/', 'store/postgres/'];
const DRIVERS = new Map([
  ['better-sqlite3', 'store/sqlite/'],
  ['sqlite-vec', 'store/sqlite/'],
  ['pg', 'store/postgres/'],
]);
/** What an interface (CLI, MCP, HTTP) may import from outside its own folder. */
const INTERFACE_ALLOWED = new Set(['index.ts', 'moon.ts', 'config.ts', 'errors.ts', 'model.ts']);

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Import {
  from: string;
  /** A path under src/ (`store/sqlite/engine.ts`), or a package name. */
  target: string;
  local: boolean;
}

function listImports(): Import[] {
  return listSources(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((match) => match[1] ?? match[2]!);
    return specifiers.map((specifier) => {
      const from = relative(SRC, file);
      if (!specifier.startsWith('.')) return { from, target: specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'), local: false };
      return { from, target: relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'), local: true };
    });
  });
}

const imports = listImports();

describe('architecture', () => {
  test('the scan sees the codebase', () => {
    expect(imports.length).toBeGreaterThan(300);
    expect(imports.some((item) => item.from === 'moon.ts' && item.target.startsWith('store/sqlite/'))).toBe(true);
  });

  test('nothing outside an engine folder imports an engine, except the composition root', () => {
    const broken = imports.filter(
      (item) => item.local && ENGINES.some((engine) => item.target.startsWith(engine) && !item.from.startsWith(engine)) && item.from !== 'moon.ts',
    );
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('database drivers are imported only by their engine', () => {
    const broken = imports.filter((item) => !item.local && DRIVERS.has(item.target) && !item.from.startsWith(DRIVERS.get(item.target)!));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('the product never loads the embedded test PostgreSQL (PGlite is a dev dependency of the tests)', () => {
    const broken = imports.filter((item) => !item.local && item.target.startsWith('@electric-sql/'));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const shipped = ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {}));
    expect(shipped.filter((name) => name.startsWith('@electric-sql/'))).toEqual([]);
  });

  test('interfaces reach the library API only', () => {
    const broken = imports.filter(
      (item) => item.local && item.from.startsWith('interfaces/') && !item.target.startsWith('interfaces/') && !INTERFACE_ALLOWED.has(item.target),
    );
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('stages reach data through the ports, never the synchronous SQLite store', () => {
    const broken = imports.filter((item) => item.local && item.target === 'store/store.ts' && !item.from.startsWith('store/'));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('the store does not depend on the stages above it', () => {
    const above = ['ingest/', 'search/', 'browse/', 'maintain/', 'interfaces/', 'moon.ts', 'index.ts', 'sources/', 'project/'];
    const broken = imports.filter((item) => item.local && item.from.startsWith('store/') && above.some((stage) => item.target.startsWith(stage)));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });
});
