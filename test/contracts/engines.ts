import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, test } from 'vitest';
import type { MarkerConfig } from '../../src/markers/extract.js';
import type { EngineName, StoreEngine } from '../../src/store/ports.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { type TestPostgres, startTestPostgres } from '../helpers/postgres.js';

/**
 * The engines every contract suite runs against. Each suite calls `describeEachEngine(title, (factory) => …)`
 * and gets its cases once per engine.
 *
 * MOON_TEST_ENGINES (local work only; CI never sets it): a comma-separated list of engine names to run, e.g.
 * `MOON_TEST_ENGINES=sqlite npx vitest run test/contracts` while the PostgreSQL engine is unfinished. Without
 * it every engine runs, and the PostgreSQL cases fail loudly — never skip — when PostgreSQL cannot start or the
 * engine module is missing. They run on a real server when one is found, else on the embedded one (PGlite);
 * test/helpers/postgres.ts decides.
 */

export interface OpenedEngine {
  engine: StoreEngine;
  /**
   * A second engine over the same data: another process of the same machine (default), or — for an engine that
   * several machines share — another machine. Closed by cleanup.
   */
  openAnother(options?: { otherMachine?: boolean; markers?: MarkerConfig }): Promise<StoreEngine>;
  /** Close every engine opened here and drop the data. */
  cleanup(): Promise<void>;
}

export interface EngineFactory {
  readonly name: EngineName;
  /** A fresh, empty store. */
  open(): Promise<OpenedEngine>;
}

/** What test/contracts needs of `src/store/postgres/engine.ts` (typed here so this file compiles without it). */
interface PostgresEngineModule {
  openPostgresEngine(
    url: string,
    options?: { machine?: string; lockTimeoutMs?: number; onWait?: (message: string) => void; markers?: MarkerConfig },
  ): Promise<StoreEngine>;
}

/** A computed specifier: TypeScript does not resolve it, so this file type-checks before the module exists. */
const POSTGRES_ENGINE_MODULE = '../../src/store/postgres/engine.js';

const sqlite: EngineFactory = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'moon-contract-'));
    const path = join(dir, 'moon.db');
    const engines: StoreEngine[] = [openSqliteEngine(path)];
    return {
      engine: engines[0]!,
      async openAnother(options = {}) {
        const another = openSqliteEngine(path, options.markers ? { markers: options.markers } : {});
        engines.push(another);
        return another;
      },
      async cleanup() {
        for (const engine of engines) await engine.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** One PostgreSQL per test file (vitest runs each file in its own process), started on first use. */
let server: Promise<TestPostgres> | null = null;
let postgresModule: Promise<PostgresEngineModule> | null = null;
let databases = 0;

async function loadPostgresEngine(): Promise<PostgresEngineModule> {
  let loaded: Partial<PostgresEngineModule>;
  try {
    loaded = (await import(POSTGRES_ENGINE_MODULE)) as Partial<PostgresEngineModule>;
  } catch (error) {
    throw new Error(
      `PostgreSQL engine missing: cannot import src/store/postgres/engine.ts (${(error as Error).message}). ` +
        'Every PostgreSQL contract case fails until it exists.',
      { cause: error },
    );
  }
  if (typeof loaded.openPostgresEngine !== 'function') {
    throw new Error('src/store/postgres/engine.ts does not export openPostgresEngine(url, options): Promise<StoreEngine>');
  }
  return loaded as PostgresEngineModule;
}

async function startServer(): Promise<TestPostgres> {
  try {
    return await startTestPostgres();
  } catch (error) {
    throw new Error(`PostgreSQL for the contract suites did not start: ${(error as Error).message}`, { cause: error });
  }
}

const postgres: EngineFactory = {
  name: 'postgres',
  async open() {
    // The module first: a missing engine fails at once, without an initdb.
    postgresModule ??= loadPostgresEngine();
    const { openPostgresEngine } = await postgresModule;
    server ??= startServer();
    const running = await server;
    databases += 1;
    const url = await running.createDatabase(`moon_contract_${process.pid}_${databases}`);
    const engines: StoreEngine[] = [];
    try {
      engines.push(await openPostgresEngine(url, { machine: 'contract-a' }));
    } catch (error) {
      await running.dropDatabase(url);
      throw error;
    }
    return {
      engine: engines[0]!,
      async openAnother(options = {}) {
        const another = await openPostgresEngine(url, {
          machine: options.otherMachine ? 'contract-b' : 'contract-a',
          ...(options.markers ? { markers: options.markers } : {}),
        });
        engines.push(another);
        return another;
      },
      async cleanup() {
        for (const engine of engines) await engine.close();
        await running.dropDatabase(url);
      },
    };
  },
};

export const ALL_ENGINES: readonly EngineFactory[] = [sqlite, postgres];

/** The engines this run covers: all of them unless MOON_TEST_ENGINES names some (local work only). */
export function selectedEngines(): EngineFactory[] {
  const wanted = process.env.MOON_TEST_ENGINES?.trim();
  if (!wanted) return [...ALL_ENGINES];
  const names = wanted.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !ALL_ENGINES.some((factory) => factory.name === name));
  if (unknown.length > 0) throw new Error(`MOON_TEST_ENGINES names unknown engines: ${unknown.join(', ')}`);
  return ALL_ENGINES.filter((factory) => names.includes(factory.name));
}

let serverStopRegistered = false;

/**
 * Stop this file's PostgreSQL server after its last suite (registered once, on the file's root suite). Called
 * by describeEachEngine; a file that opens engines otherwise (parity) calls it at its top level.
 */
export function registerServerStop(): void {
  if (serverStopRegistered) return;
  serverStopRegistered = true;
  afterAll(async () => {
    const started = server;
    server = null;
    if (!started) return;
    const running = await started.catch(() => null);
    await running?.stop();
  });
}

/** Run `body` once per selected engine, inside `describe('<engine>: <title>')`. */
export function describeEachEngine(title: string, body: (factory: EngineFactory) => void): void {
  registerServerStop();
  const cases = selectedEngines().map((factory) => [factory.name, factory] as const);
  describe.each(cases)(`%s: ${title.replace(/%/g, '%%')}`, (_name, factory) => body(factory));
}

/** A fresh empty engine for every test of the enclosing describe. */
export function useFreshEngine(factory: EngineFactory): { readonly engine: StoreEngine; readonly opened: OpenedEngine } {
  let opened: OpenedEngine | null = null;
  beforeEach(async () => {
    opened = await factory.open();
  });
  afterEach(async () => {
    const current = opened;
    opened = null;
    await current?.cleanup();
  });
  return {
    get engine() {
      if (!opened) throw new Error(`no ${factory.name} engine is open`);
      return opened.engine;
    },
    get opened() {
      if (!opened) throw new Error(`no ${factory.name} engine is open`);
      return opened;
    },
  };
}

/**
 * One engine for every test of the enclosing describe, seeded once: for suites that only read. A test that
 * writes must use useFreshEngine instead.
 */
export function useSeededEngine(factory: EngineFactory, seed: (engine: StoreEngine) => Promise<void>): { readonly engine: StoreEngine } {
  let opened: OpenedEngine | null = null;
  let failure: unknown = null;
  beforeAll(async () => {
    // A failure here is rethrown by every test (below), so each PostgreSQL case fails with the reason.
    try {
      opened = await factory.open();
      await seed(opened.engine);
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    const current = opened;
    opened = null;
    await current?.cleanup();
  });
  return {
    get engine() {
      if (failure) throw failure;
      if (!opened) throw new Error(`no ${factory.name} engine is open`);
      return opened.engine;
    },
  };
}

/**
 * `test`, or `test.fails` for an engine with a known, reported violation of the case (`known` maps engine names
 * to the reason). The suite stays green while the bug is open and goes red the moment it is fixed: then delete
 * the marker.
 */
export function testKnownFailing(factory: EngineFactory, known: Partial<Record<EngineName, string>>): (name: string, fn: () => Promise<void>) => void {
  return (name, fn) => (known[factory.name] ? test.fails(`${name} [known ${factory.name} bug: ${known[factory.name]}]`, fn) : test(name, fn));
}
