import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errnoOf } from '../errors.js';
import type { ModelDtype } from './model-files.js';

/**
 * `moon-model.json`, written into a model's folder when every file of it is verified: where it came from, what it
 * holds and each file's checksum (docs/formats.md, "Model manifest"). A folder copied in by hand has none.
 */
export const MANIFEST_FILE = 'moon-model.json';
export const MANIFEST_FORMAT = 1;

export interface ManifestFile {
  path: string;
  size: number;
  /** SHA-256 of the content (files the hub keeps in LFS). */
  sha256?: string;
  /** Git's blob id (the other files). */
  git_sha1?: string;
}

export interface ModelManifest {
  format: typeof MANIFEST_FORMAT;
  name: string;
  repo: string;
  revision: string;
  /** The hub it came from. */
  endpoint: string;
  dtype: ModelDtype;
  /** The vector width from config.json (hidden_size), null when it states none. */
  dims: number | null;
  files: ManifestFile[];
  /** ISO 8601, UTC. */
  pulled_at: string;
}

export function renderManifest(manifest: ModelManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The manifest of a model folder; null when there is none or it does not read as one. */
export function readManifest(dir: string): ModelManifest | null {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return null;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<ModelManifest> | null;
    if (!value || value.format !== MANIFEST_FORMAT || typeof value.repo !== 'string' || !Array.isArray(value.files)) return null;
    return value as ModelManifest;
  } catch {
    return null;
  }
}
