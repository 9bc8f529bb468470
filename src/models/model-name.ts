import { statSync } from 'node:fs';
import { join } from 'node:path';
import { MoonError } from '../errors.js';

/**
 * Names of the embedding models moon keeps in $MOON_HOME/models. A model is pulled from a hub repo (`owner/name`)
 * and kept under the repo's name (`Xenova/bge-small-en-v1.5` → models/bge-small-en-v1.5); `embed.model` may give
 * either form. A few well-known models can be pulled by their name alone.
 */

/** The model `moon models pull` fetches and `embed.provider = "transformers"` uses when none is named. */
export const DEFAULT_MODEL_NAME = 'bge-small-en-v1.5';

/** Models pulled by name alone: small English sentence-embedding models exported to ONNX (with a quantised file). */
const KNOWN_REPOS: Readonly<Record<string, string>> = {
  'bge-small-en-v1.5': 'Xenova/bge-small-en-v1.5',
  'gte-small': 'Xenova/gte-small',
  'all-MiniLM-L6-v2': 'Xenova/all-MiniLM-L6-v2',
};

/** A repo part or a name: what a hub allows, and nothing a path could misread (no leading dot, no separator). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

export interface ModelRef {
  /** The folder name under $MOON_HOME/models. */
  name: string;
  /** `owner/name` on the hub. */
  repo: string;
}

/** The names that pull by name alone, with their repos (for help texts). */
export function listKnownModels(): ModelRef[] {
  return Object.entries(KNOWN_REPOS).map(([name, repo]) => ({ name, repo }));
}

/** The local name a model spec (`name` or `owner/name`) is kept under; `what` names the argument or key in errors. */
export function toModelName(spec: string, what: string): string {
  const parts = spec.split('/');
  if (parts.length > 2 || !parts.every((part) => NAME.test(part))) {
    throw new MoonError('bad_input', `${what}: "${spec}" is not a model name (letters, digits, ".", "_", "-") or a hub repo "owner/name"`, {
      hint: `e.g. ${DEFAULT_MODEL_NAME} or ${KNOWN_REPOS[DEFAULT_MODEL_NAME]}`,
    });
  }
  return parts.at(-1)!;
}

/** What `moon models pull [spec]` fetches: the default model, a known name, or any `owner/name` repo. */
export function resolvePullTarget(spec: string | undefined): ModelRef {
  const given = spec ?? DEFAULT_MODEL_NAME;
  const name = toModelName(given, 'model');
  if (given.includes('/')) return { name, repo: given };
  const repo = KNOWN_REPOS[given];
  if (repo) return { name, repo };
  throw new MoonError('bad_input', `model "${given}" is not one moon knows by name (${Object.keys(KNOWN_REPOS).join(', ')})`, {
    hint: `give its hub repo instead: moon models pull OWNER/${given}`,
  });
}

/** The command that brings a model named by `spec` (as embed.model gives it) into the home. */
export function describePullCommand(spec: string | undefined): string {
  const given = spec ?? DEFAULT_MODEL_NAME;
  return given.includes('/') || KNOWN_REPOS[given] ? `moon models pull ${given}` : `moon models pull OWNER/${given} (the hub repo it comes from)`;
}

/** Where a model of this name lives in the home (whether or not it is there). */
export function modelDirOf(modelsDir: string, name: string): string {
  return join(modelsDir, name);
}

/** Where an unfinished pull keeps its files until every one is verified (a dot folder: never taken for a model). */
export function stagingDirOf(modelsDir: string, name: string): string {
  return join(modelsDir, `.pull-${name}`);
}

export interface NamedModel {
  /** The spec as embed.model gave it (undefined: the default model). */
  spec: string | undefined;
  name: string;
  dir: string;
  /** A folder is there (pulled, or copied in by hand). */
  present: boolean;
}

/** The model `embed.model` names (or the default model), found in the home's models folder or not. */
export function locateNamedModel(modelsDir: string, spec: string | undefined): NamedModel {
  let name: string;
  try {
    name = toModelName(spec ?? DEFAULT_MODEL_NAME, 'embed.model');
  } catch (error) {
    // A key of the configuration, not an argument: the same words, the configuration's code.
    throw new MoonError('bad_config', (error as MoonError).message, { hint: (error as MoonError).hint });
  }
  const dir = modelDirOf(modelsDir, name);
  let present = false;
  try {
    present = statSync(dir).isDirectory();
  } catch {
    // absent
  }
  return { spec, name, dir, present };
}

/**
 * The error for a named model that is not in the home: it names the key and says how to bring the model in. Recall
 * and indexing catch it (code `model_missing`) and go on with words only.
 */
export function modelMissingError(model: NamedModel): MoonError {
  const which = model.spec === undefined ? `embed.model is not set, so embed.provider = "transformers" uses the default model "${model.name}", which` : `embed.model = "${model.spec}": the model`;
  return new MoonError('model_missing', `${which} is not in ${model.dir}`, {
    hint: `run: ${describePullCommand(model.spec)}`,
  });
}
