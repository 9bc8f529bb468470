import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readlinkSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveHome } from '../../archive/moon-home.js';
import type { MoonConfig } from '../../config.js';
import { readBuildId } from '../../runtime/build-paths.js';

/**
 * A hook's configuration without the schema library. Validating moon.toml and the environment loads zod, which
 * costs a hook more than half of its budget (~40–100 ms of a 150 ms session-start on 2 cores). A hook instead
 * reads the configuration the last full load validated — `$MOON_HOME/state/hook-config.json`, private to the
 * user — when everything that load read is unchanged: the bytes of moon.toml (or its absence), every MOON_* and
 * MEMORY_* variable, TZ and the system's time zone, the flags, and the build of moon that validated it. Anything
 * else — a changed file, a new variable, another build, an unreadable or foreign cache — is a full load (which
 * reports a bad configuration exactly as every command does) that writes the cache again.
 */
export const HOOK_CONFIG_CACHE = join('state', 'hook-config.json');
const CACHE_VERSION = 2;

export interface HookConfigRequest {
  env: NodeJS.ProcessEnv;
  home?: string;
  overrides: Record<string, unknown>;
}

/** The validated configuration: cached when its inputs are unchanged, else loaded in full and cached. */
export async function loadHookConfig(request: HookConfigRequest): Promise<MoonConfig> {
  const home = resolveHome(request.env, request.home);
  const cacheFile = join(home, HOOK_CONFIG_CACHE);
  const key = configKey(home, request);
  const cached = readCache(cacheFile, key);
  if (cached !== null) return cached;
  const config = (await import('../../config.js')).loadConfig({ env: request.env, home: request.home, overrides: request.overrides });
  writeCache(home, cacheFile, key, config);
  return config;
}

/** What loadConfig reads, hashed. Variables are taken by prefix (a superset of the ones it reads: never stale). */
export function configKey(home: string, request: HookConfigRequest): string {
  const hash = createHash('sha256');
  const add = (label: string, value: string | null): void => {
    hash.update(`${label}\u0000${value === null ? '\u0001' : value}\u0000`);
  };
  add('version', String(CACHE_VERSION));
  add('build', readBuildId());
  add('home', home);
  add('moon.toml', readOrNull(join(home, 'moon.toml')));
  for (const name of Object.keys(request.env).sort()) {
    if (name.startsWith('MOON_') || name.startsWith('MEMORY_') || name === 'TZ') add(`env:${name}`, request.env[name] ?? null);
  }
  add('zone', readSystemZone());
  for (const name of Object.keys(request.overrides).sort()) {
    const value = request.overrides[name];
    if (value !== undefined) add(`flag:${name}`, JSON.stringify(value));
  }
  return hash.digest('hex');
}

/**
 * What the system's time zone is set by, read without Intl (whose first use costs a hook ~30 ms): the target of
 * /etc/localtime where it is a link (Linux, macOS), else its bytes and /etc/timezone's; Intl only where neither
 * exists (Windows, a bare container). TZ is part of the key already.
 */
function readSystemZone(): string {
  try {
    return `link:${readlinkSync('/etc/localtime')}`;
  } catch {
    const file = readOrNull('/etc/localtime');
    const named = readOrNull('/etc/timezone');
    if (file !== null || named !== null) return `file:${createHash('sha256').update(file ?? '').digest('hex')}:${named ?? ''}`;
    return `intl:${Intl.DateTimeFormat().resolvedOptions().timeZone}`;
  }
}

/**
 * The cache keeps the last few configurations (most recent first): an agent's hooks may run with different
 * variables (one hook with MOON_HOOKS_USER_PROMPT_RECALL set, another without), and one entry would make them
 * evict each other on every turn.
 */
const CACHED_CONFIGS = 4;

interface CacheEntry {
  key: string;
  config: MoonConfig;
}

function readEntries(file: string): CacheEntry[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { entries?: unknown };
    if (!Array.isArray(parsed.entries)) return [];
    return parsed.entries.filter(
      (entry): entry is CacheEntry => typeof entry === 'object' && entry !== null && typeof entry.key === 'string' && typeof entry.config === 'object' && entry.config !== null,
    );
  } catch {
    return [];
  }
}

function readCache(file: string, key: string): MoonConfig | null {
  const found = readEntries(file).find((entry) => entry.key === key);
  return found ? Object.freeze(found.config) : null;
}

/** Written beside the rest of the home's state, atomically, readable by the user alone; never a hook's failure. */
function writeCache(home: string, file: string, key: string, config: MoonConfig): void {
  try {
    if (!statSync(home).isDirectory()) return;
    mkdirSync(join(home, 'state'), { recursive: true, mode: 0o700 });
    const entries = [{ key, config }, ...readEntries(file).filter((entry) => entry.key !== key)].slice(0, CACHED_CONFIGS);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ entries })}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // No home yet, a read-only home: the next hook loads in full again.
  }
}

function readOrNull(path: string | URL): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
