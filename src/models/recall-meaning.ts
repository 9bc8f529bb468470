import type { ConfigFile } from '../config.js';
import { describePullCommand, locateNamedModel } from './model-name.js';

/** What recall uses: words only, or words and meaning through an embedding provider — and which model. */
export interface RecallMeaning {
  provider: ConfigFile['embed']['provider'];
  /** The model in use: a pulled model's name, embed.model_path, or the provider's model; null for `none`. */
  model: string | null;
  /** Where a transformers model is read from (a pulled model's folder, or embed.model_path); null for the others. */
  dir: string | null;
  /** transformers by name: whether the model's folder is there (false: recall uses words only until it is pulled). */
  present: boolean | null;
  /** The command that brings a missing model in (`moon models pull NAME`); null when nothing is missing. */
  pull: string | null;
}

/** From the configuration and the models folder only: no model is loaded, no endpoint asked. */
export function describeRecallMeaning(embed: ConfigFile['embed'], modelsDir: string): RecallMeaning {
  switch (embed.provider) {
    case 'none':
      return { provider: 'none', model: null, dir: null, present: null, pull: null };
    case 'transformers': {
      if (embed.model_path) return { provider: 'transformers', model: embed.model ?? null, dir: embed.model_path, present: null, pull: null };
      const named = locateNamedModel(modelsDir, embed.model);
      return { provider: 'transformers', model: named.name, dir: named.dir, present: named.present, pull: named.present ? null : describePullCommand(embed.model) };
    }
    case 'local':
      return { provider: 'local', model: embed.model ?? 'use-lite-en', dir: null, present: null, pull: null };
    default:
      return { provider: embed.provider, model: embed.model ?? null, dir: null, present: null, pull: null };
  }
}
