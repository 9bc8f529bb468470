import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { resolveChunking } from '../../src/distill/run-norm.js';
import { makeTempDir } from '../helpers/cli.js';

/** The distill, watcher, context and logs keys: defaults, environment spellings, and errors that name the key. */
const dirs: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

function home(toml = ''): string {
  const dir = makeTempDir('moon-config-');
  dirs.push(dir.cleanup);
  if (toml) writeFileSync(join(dir.path, 'moon.toml'), toml);
  return dir.path;
}

describe('watcher and distillation keys', () => {
  test('defaults', () => {
    const config = loadConfig({ home: home(), env: {} });
    expect(config.distill).toMatchObject({ provider: 'local', chunk_bytes: 'auto', max_per_cycle: 10, timeout_ms: 60_000, max_tries: 3 });
    expect(config.watcher).toEqual({ cooldown_secs: 300, poll_interval_secs: 30, debounce_ms: 1_000 });
    expect(config.context).toEqual({ compaction_start_ratio: 0.8, compaction_emergency_ratio: 0.95 });
    expect(resolveChunking(config.distill)).toEqual({ chunkBytes: 64_000, maxChunks: 4 });
  });

  test('environment variables, each with its own kind', () => {
    const config = loadConfig({
      home: home(),
      env: {
        MOON_DISTILL_CHUNK_BYTES: '2048',
        MOON_DISTILL_MAX_CHUNKS: '3',
        MOON_DISTILL_MODEL_CONTEXT_TOKENS: '8000',
        MOON_DISTILL_MAX_PER_CYCLE: '2',
        MOON_WATCHER_COOLDOWN_SECS: '0',
        MOON_WATCHER_POLL_INTERVAL_SECS: '5',
        MOON_COMPACTION_START_RATIO: '0.7',
        MOON_LOGS_DIR: '/var/log/moon',
      },
    });
    expect(config.distill).toMatchObject({ chunk_bytes: 2048, max_chunks: 3, model_context_tokens: 8000, max_per_cycle: 2 });
    expect(config.watcher).toMatchObject({ cooldown_secs: 0, poll_interval_secs: 5 });
    expect(config.context.compaction_start_ratio).toBe(0.7);
    expect(config.logs.dir).toBe('/var/log/moon');
    expect(resolveChunking(loadConfig({ home: home(), env: { MOON_DISTILL_MODEL_CONTEXT_TOKENS: '8000' } }).distill).chunkBytes).toBe(16_000);
  });

  test.each([
    ['[distill]\nchunk_bytes = "big"\n', {}, /moon\.toml: distill\.chunk_bytes: must be "auto" or a positive whole number of bytes/],
    ['[distill]\nmax_chunks = 0\n', {}, /distill\.max_chunks: Too small/],
    ['[distill]\napi_key_env = "sk-live-123 oops"\n', {}, /distill\.api_key_env: must be the name of an environment variable/],
    ['[watcher]\npoll_interval_secs = 0\n', {}, /watcher\.poll_interval_secs/],
    ['[watcher]\ncooldown = 5\n', {}, /unknown key watcher\.cooldown/],
    ['', { MOON_COMPACTION_START_RATIO: 'high' }, /MOON_COMPACTION_START_RATIO: expected a number, got "high"/],
    ['', { MOON_DISTILL_PROVIDER: 'openai-compatible' }, /MOON_DISTILL_PROVIDER: distill\.base_url is required when distill\.provider = "openai-compatible"/],
    ['', { MOON_DISTILL_PROVIDER: 'chatgpt' }, /MOON_DISTILL_PROVIDER: distill\.provider/],
  ])('%s %o is refused naming the key', (toml, env, message) => {
    expect(() => loadConfig({ home: home(toml), env })).toThrow(message);
  });
});
