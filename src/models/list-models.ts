import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errnoOf, toIoError } from '../errors.js';
import { readManifest } from './manifest.js';
import { findOnnxDtype, readHiddenSize } from './model-files.js';

/** A model in $MOON_HOME/models, as `moon models list` shows it. */
export interface ModelListing {
  name: string;
  dir: string;
  /** The hub repo it was pulled from; null for a folder copied in by hand (no moon-model.json). */
  repo: string | null;
  revision: string | null;
  /** The ONNX file's dtype (q8, fp32, …); null when the folder holds no ONNX model. */
  dtype: string | null;
  /** The vector width its config.json states; null when it states none. */
  dims: number | null;
  /** Bytes of every file in the folder. */
  bytes: number;
  pulled_at: string | null;
}

/** Every model folder (staging folders of unfinished pulls, named with a leading dot, are not models). */
export function listModels(modelsDir: string): ModelListing[] {
  let names: string[];
  try {
    names = readdirSync(modelsDir);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw toIoError(modelsDir, error, 'read');
  }
  return names
    .filter((name) => !name.startsWith('.'))
    .sort()
    .flatMap((name) => {
      const dir = join(modelsDir, name);
      try {
        if (!statSync(dir).isDirectory()) return [];
      } catch {
        return [];
      }
      return [describeModelFolder(name, dir)];
    });
}

/** What a model folder holds: from its manifest when it has one, else from its files. */
export function describeModelFolder(name: string, dir: string): ModelListing {
  const manifest = readManifest(dir);
  const bytes = sumBytes(dir);
  if (manifest) {
    return { name, dir, repo: manifest.repo, revision: manifest.revision, dtype: manifest.dtype, dims: manifest.dims, bytes, pulled_at: manifest.pulled_at };
  }
  let dims: number | null = null;
  try {
    dims = readHiddenSize(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>) ?? null;
  } catch {
    // no readable config.json: the embedder will say so when it loads the folder
  }
  let onnx: string[] = [];
  try {
    onnx = readdirSync(join(dir, 'onnx'));
  } catch {
    // no onnx/ folder
  }
  return { name, dir, repo: null, revision: null, dtype: findOnnxDtype(onnx) ?? null, dims, bytes, pulled_at: null };
}

/** Bytes of the files under `dir`, symlinks not followed. */
function sumBytes(dir: string): number {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) total += lstatSync(path).size;
    }
  }
  return total;
}
