import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO } from './helpers/cli.js';

/**
 * The layering, checked on every import in src/: interfaces → library API (index.ts, moon.ts) → planes (app/) →
 * stages → records and store ports. Only the composition root and its planes pick an engine; only an engine's own
 * folder talks to its driver; no two top-level folders import each other, directly or round a cycle.
 */
const SRC = join(REPO, 'src');
const ENGINES = ['store/sqlite/', 'store/postgres/'];
const DRIVERS = new Map([
  ['better-sqlite3', 'store/sqlite/'],
  ['sqlite-vec', 'store/sqlite/'],
  ['pg', 'store/postgres/'],
]);
/** What an interface (CLI, MCP, HTTP) may import from outside its own folder. */
const INTERFACE_ALLOWED = new Set(['index.ts', 'moon.ts', 'config.ts', 'errors.ts', 'model.ts', 'text/escape-control.ts']);
/**
 * The hook door (interfaces/hook/: what an agent's hook line runs) must not load the library barrel or the whole
 * composition root, so it stands on the hooks plane and its own composition directly.
 */
const HOOK_DOOR_ALLOWED = (target: string): boolean =>
  target.startsWith('hooks/') || ['app/hook-deps.ts', 'time/clock.ts', 'archive/moon-home.ts'].includes(target) || target.startsWith('runtime/');

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
    // Static (`import … from`, `export … from`, `import type`), side-effect (`import './x.js'`) and dynamic
    // (`import('./x.js')`, `typeof import('./x.js')`) imports all count.
    const pattern = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+'([^']+)'|(?:^|\s)import\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;
    const specifiers = [...text.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? match[3]!);
    return specifiers.map((specifier) => {
      const from = relative(SRC, file);
      if (!specifier.startsWith('.')) return { from, target: specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'), local: false };
      return { from, target: relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'), local: true };
    });
  });
}

const imports = listImports();

/** The top-level unit of a path under src/: its first folder, or the file itself for a file at the top (`moon.ts`). */
function unitOf(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(0, slash);
}

/** Edges between top-level units, each with the imports that make it (`from → target`). */
function unitGraph(list: readonly Import[]): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const item of list) {
    if (!item.local) continue;
    const from = unitOf(item.from);
    const to = unitOf(item.target);
    if (from === to) continue;
    const edges = graph.get(from) ?? new Map<string, string[]>();
    edges.set(to, [...(edges.get(to) ?? []), `${item.from} → ${item.target}`]);
    graph.set(from, edges);
  }
  return graph;
}

/**
 * Every import cycle between units, one per strongly connected component (Tarjan), written as the cycle's path
 * with one import that makes each step: `store → digest (store/ports.ts → digest/types.ts) → store (…)`.
 */
function findCycles(graph: Map<string, Map<string, string[]>>): string[] {
  const units = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((edges) => [...edges.keys()])])].sort();
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (unit: string): void => {
    order.set(unit, order.size);
    low.set(unit, order.get(unit)!);
    stack.push(unit);
    onStack.add(unit);
    for (const next of graph.get(unit)?.keys() ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(unit, Math.min(low.get(unit)!, order.get(next)!));
      }
    }
    if (low.get(unit) !== order.get(unit)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    } while (top !== unit);
    if (component.length > 1) components.push(component.sort());
  };
  for (const unit of units) if (!order.has(unit)) visit(unit);
  return components.map((component) => describeCycle(graph, component));
}

/** One cycle through a component, found breadth-first from its first unit back to itself. */
function describeCycle(graph: Map<string, Map<string, string[]>>, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  let closing: string | null = null;
  while (queue.length > 0 && closing === null) {
    const unit = queue.shift()!;
    for (const next of graph.get(unit)?.keys() ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        closing = unit;
        break;
      }
      if (!previous.has(next)) {
        previous.set(next, unit);
        queue.push(next);
      }
    }
  }
  const path = [start];
  for (let unit = closing!; unit !== start; unit = previous.get(unit)!) path.splice(1, 0, unit);
  path.push(start);
  const steps = path.slice(1).map((unit, index) => `${unit} (${graph.get(path[index]!)!.get(unit)![0]})`);
  return `${start} → ${steps.join(' → ')}  [${component.length} units: ${component.join(', ')}]`;
}

describe('architecture', () => {
  test('the scan sees the codebase', () => {
    expect(imports.length).toBeGreaterThan(300);
    expect(imports.some((item) => item.from === 'app/shared.ts' && item.target.startsWith('store/sqlite/'))).toBe(true);
  });

  test('nothing outside an engine folder imports an engine, except the composition root and the planes it builds', () => {
    const composition = (from: string): boolean => from === 'moon.ts' || from.startsWith('app/');
    const broken = imports.filter(
      (item) => item.local && ENGINES.some((engine) => item.target.startsWith(engine) && !item.from.startsWith(engine)) && !composition(item.from),
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
      (item) =>
        item.local &&
        item.from.startsWith('interfaces/') &&
        !item.target.startsWith('interfaces/') &&
        !INTERFACE_ALLOWED.has(item.target) &&
        !(item.from.startsWith('interfaces/hook/') && HOOK_DOOR_ALLOWED(item.target)),
    );
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('stages reach data through the ports, never the synchronous SQLite store', () => {
    const broken = imports.filter((item) => item.local && item.target === 'store/store.ts' && !item.from.startsWith('store/'));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('no import cycle between the top-level folders of src/ (moon.ts and index.ts each count as a folder)', () => {
    expect(findCycles(unitGraph(imports))).toEqual([]);
  });

  test('the cycle check finds and prints a cycle, type-only and dynamic imports included', () => {
    const planted: Import[] = [
      { from: 'store/ports.ts', target: 'digest/types.ts', local: true },
      { from: 'digest/run.ts', target: 'browse/show.ts', local: true },
      { from: 'browse/show.ts', target: 'store/ports.ts', local: true },
      { from: 'browse/show.ts', target: 'time/format.ts', local: true },
      { from: 'moon.ts', target: 'store/ports.ts', local: true },
    ];
    const cycles = findCycles(unitGraph(planted));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toContain('store/ports.ts → digest/types.ts');
    expect(cycles[0]).toContain('3 units: browse, digest, store');
    expect(findCycles(unitGraph(planted.slice(1)))).toEqual([]);
    // The scan itself sees type-only and dynamic imports (search/recall.ts is only ever loaded with import()).
    expect(imports.some((item) => item.from === 'store/ports.ts' && item.target === 'records/long-term.ts')).toBe(true);
    expect(imports.some((item) => item.target === 'search/recall.ts')).toBe(true);
  });

  test('nothing below the doors imports the composition root or the library barrel', () => {
    const roots = new Set(['moon.ts', 'index.ts']);
    const broken = imports.filter((item) => item.local && roots.has(item.target) && !item.from.startsWith('interfaces/') && !roots.has(item.from));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });

  test('the store does not depend on the stages above it', () => {
    const above = ['ingest/', 'search/', 'browse/', 'maintain/', 'interfaces/', 'moon.ts', 'index.ts', 'sources/', 'project/'];
    const broken = imports.filter((item) => item.local && item.from.startsWith('store/') && above.some((stage) => item.target.startsWith(stage)));
    expect(broken.map((item) => `${item.from} → ${item.target}`)).toEqual([]);
  });
});
