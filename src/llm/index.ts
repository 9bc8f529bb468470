import type { ConfigFile, LlmProviderName } from '../config.js';
import { MoonError } from '../errors.js';
import { AnthropicProvider } from './anthropic.js';
import { createCommandProvider } from './command.js';
import { GeminiProvider } from './gemini.js';
import { createLocalProvider } from './local.js';
import { createOpenAICompatibleProvider, createOpenAIProvider } from './openai.js';
import type { Provider } from './provider.js';
import type { RemoteProviderOptions } from './remote.js';

export type { CompleteOptions, Provider } from './provider.js';
export { DEFAULT_MAX_TOKENS } from './provider.js';

/** The `[distill]` section of the config, as parsed (defaults applied). */
export type DistillConfig = ConfigFile['distill'];

/** What `createProvider` accepts: the parsed section, or a hand-written one where the defaulted keys may be left out. */
export type DistillConfigInput = Pick<DistillConfig, 'provider'> & Partial<Omit<DistillConfig, 'provider'>>;

/** Retry timing that is not configuration (tests make it short). */
export interface ProviderTuning {
  retryBaseMs?: number | undefined;
  maxRetryDelayMs?: number | undefined;
}

/** Where each provider's key is read from when distill.api_key_env is unset. `openai-compatible` needs none. */
export const DEFAULT_API_KEY_ENV: Readonly<Record<LlmProviderName, string | undefined>> = {
  local: undefined,
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'openai-compatible': undefined,
  command: undefined,
};

/**
 * The provider `config.distill` describes. Keys come from the environment only: `env[distill.api_key_env]`, or
 * the vendor's usual variable. A cloud provider without a key — or any provider whose explicitly named variable
 * is unset or blank — is a bad_config error naming `distill.api_key_env` and the variable (never a value).
 * Nothing is sent here: the first request is the first `complete`.
 */
export function createProvider(
  config: DistillConfigInput,
  env: Readonly<Record<string, string | undefined>> = process.env,
  tuning: ProviderTuning = {},
): Provider {
  const provider: LlmProviderName = config.provider;
  if (provider === 'local') return createLocalProvider();
  if (provider === 'command') {
    checkPositive('distill.timeout_ms', config.timeout_ms);
    if (config.command === undefined) {
      throw new MoonError('bad_config', 'distill.command is required when distill.provider = "command"', {
        hint: 'set distill.command (MOON_DISTILL_COMMAND) to the agent CLI to run, e.g. "claude -p --output-format json"',
      });
    }
    return createCommandProvider({ command: config.command, model: config.model, timeoutMs: config.timeout_ms, env });
  }
  if (!config.model) {
    throw new MoonError('bad_config', `distill.model is required when distill.provider = "${provider}"`, {
      hint: 'set distill.model (MOON_DISTILL_MODEL) to the model the provider should ask',
    });
  }
  checkPositive('distill.timeout_ms', config.timeout_ms);
  checkPositive('distill.max_tries', config.max_tries);
  const apiKeyEnv = config.api_key_env ?? DEFAULT_API_KEY_ENV[provider];
  const options: RemoteProviderOptions = {
    model: config.model,
    baseUrl: config.base_url,
    apiKey: readApiKey(provider, apiKeyEnv, config.api_key_env !== undefined, env),
    apiKeyEnv,
    timeoutMs: config.timeout_ms,
    maxTries: config.max_tries,
    retryBaseMs: tuning.retryBaseMs,
    maxRetryDelayMs: tuning.maxRetryDelayMs,
  };
  switch (provider) {
    case 'openai':
      return createOpenAIProvider(options);
    case 'openai-compatible':
      return createOpenAICompatibleProvider(options);
    case 'anthropic':
      return new AnthropicProvider(options);
    case 'gemini':
      return new GeminiProvider(options);

    default: {
      const never: never = provider;
      throw new MoonError('bad_config', `distill.provider: unknown provider "${String(never)}"`);
    }
  }
}

/** The key in `env[name]`, trimmed; undefined when no variable applies (openai-compatible without api_key_env). */
function readApiKey(
  provider: LlmProviderName,
  name: string | undefined,
  named: boolean,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (name === undefined) return undefined;
  const key = env[name]?.trim();
  if (key) return key;
  throw new MoonError(
    'bad_config',
    `distill.provider = "${provider}" needs an API key, but the environment variable ${name} (distill.api_key_env${named ? '' : ' default'}) is unset or empty`,
    { hint: `export ${name}=<your key>, or set distill.api_key_env (MOON_DISTILL_API_KEY_ENV) to the name of the variable that holds it` },
  );
}

function checkPositive(key: string, value: number | undefined): void {
  if (value === undefined || (Number.isInteger(value) && value > 0)) return;
  throw new MoonError('bad_config', `${key} must be a positive integer, got ${String(value)}`);
}
