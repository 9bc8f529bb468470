import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MoonError } from '../../src/errors.js';
import { createProvider, DEFAULT_API_KEY_ENV, type DistillConfigInput } from '../../src/llm/index.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';

const home = mkdtempSync(join(tmpdir(), 'moon-llm-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function configError(config: DistillConfigInput, env: Record<string, string | undefined> = {}): MoonError {
  try {
    createProvider(config, env);
  } catch (error) {
    expect(error).toBeInstanceOf(MoonError);
    return error as MoonError;
  }
  throw new Error('expected createProvider to fail');
}

describe('createProvider', () => {
  it('builds the local provider by default, needing no key and no model', () => {
    const provider = createProvider({ provider: 'local' }, {});
    expect([provider.name, provider.model, provider.generative]).toEqual(['local', 'extractive', false]);
  });

  it('reads the vendor key variable by default and distill.api_key_env when set', () => {
    expect(DEFAULT_API_KEY_ENV).toEqual({
      local: undefined,
      openai: 'OPENAI_API_KEY',
      anthropic: 'ANTHROPIC_API_KEY',
      gemini: 'GEMINI_API_KEY',
      'openai-compatible': undefined,
      command: undefined,
    });
    expect(createProvider({ provider: 'anthropic', model: 'm', api_key_env: 'TEAM_CLAUDE_KEY' }, { TEAM_CLAUDE_KEY: 'k-123456' }).name).toBe('anthropic');
    const error = configError({ provider: 'anthropic', model: 'm', api_key_env: 'TEAM_CLAUDE_KEY' }, { ANTHROPIC_API_KEY: 'k-123456' });
    expect(error.message).toBe(
      'distill.provider = "anthropic" needs an API key, but the environment variable TEAM_CLAUDE_KEY (distill.api_key_env) is unset or empty',
    );
    expect(error.code).toBe('bad_config');
    expect(error.hint).toContain('export TEAM_CLAUDE_KEY=');
  });

  it('lets openai-compatible go without a key unless a variable is named', () => {
    expect(createProvider({ provider: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:1' }, {}).name).toBe('openai-compatible');
    const error = configError({ provider: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:1', api_key_env: 'VLLM_KEY' });
    expect(error.message).toMatch(/VLLM_KEY \(distill\.api_key_env\) is unset or empty/);
  });

  it('names distill.model and distill.base_url when they are missing, and rejects nonsense timeouts', () => {
    expect(configError({ provider: 'gemini' }, { GEMINI_API_KEY: 'k' }).message).toBe('distill.model is required when distill.provider = "gemini"');
    expect(configError({ provider: 'openai-compatible', model: 'm' }).message).toMatch(/^distill\.base_url is required/);
    expect(configError({ provider: 'openai', model: 'm', timeout_ms: 0 }, { OPENAI_API_KEY: 'k' }).message).toMatch(/^distill\.timeout_ms must be a positive integer/);
    expect(configError({ provider: 'openai', model: 'm', base_url: 'not a url' }, { OPENAI_API_KEY: 'k' }).message).toMatch(/^distill\.base_url is not a URL/);
  });

  it('takes the [distill] section loadConfig returns, MOON_DISTILL_* included, and sends the trimmed key', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, { content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' }));
    const env = {
      MOON_HOME: home,
      MOON_DISTILL_PROVIDER: 'anthropic',
      MOON_DISTILL_MODEL: 'claude-x',
      MOON_DISTILL_BASE_URL: server.baseUrl,
      MOON_DISTILL_API_KEY_ENV: 'MY_CLAUDE',
      MY_CLAUDE: '  k-live-abcdef  ',
    };
    const config = loadConfig({ env });
    const provider = createProvider(config.distill, env);
    expect(await provider.complete('hello')).toBe('hi');
    expect(server.requests[0]!.headers['x-api-key']).toBe('k-live-abcdef');
  });
});
