import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { REPO, makeTempDir } from './cli.js';

export interface TestHome {
  home: string;
  /** A copy of the bundled examples: the source root the home indexes. */
  sources: string;
  moon: Moon;
  /** The instant the home's clock reads (ms); tests move it. */
  setNow(ms: number): void;
  /** Open a fresh Moon on the same home (after moon.toml changes). */
  reopen(env?: Record<string, string>): Moon;
  cleanup(): Promise<void>;
}

/** A temp home with the bundled examples indexed, on a clock the test controls. */
export async function makeIndexedHome(options: { zone?: string; toml?: string; env?: Record<string, string> } = {}): Promise<TestHome> {
  const dir = makeTempDir('moon-home-');
  const home = join(dir.path, 'home');
  const sources = join(dir.path, 'sources');
  mkdirSync(home, { recursive: true });
  cpSync(join(REPO, 'examples'), sources, { recursive: true });
  if (options.toml) writeFileSync(join(home, 'moon.toml'), options.toml);
  let nowMs = Date.parse('2026-03-01T01:00:00Z');
  const clock = (): number => nowMs;
  const open = (env: Record<string, string> = {}): Moon =>
    createMoon(
      loadConfig({ home, env: { MOON_RESIDENTIAL_TIMEZONE: options.zone ?? 'Australia/Sydney', MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0', ...options.env, ...env } }),
      clock,
      { env: { ...options.env, ...env } },
    );
  const opened: Moon[] = [];
  const moon = open();
  opened.push(moon);
  await moon.history.index({ roots: [sources] });
  return {
    home,
    sources,
    moon,
    setNow: (ms) => {
      nowMs = ms;
    },
    reopen: (env) => {
      const next = open(env);
      opened.push(next);
      return next;
    },
    cleanup: async () => {
      for (const item of opened) await item.close();
      dir.cleanup();
    },
  };
}
