import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { toIoError } from '../errors.js';

/**
 * The checksums a hub states for each file: SHA-256 of the content for large (LFS) files, and for the rest git's
 * blob id — SHA-1 of `blob <size>\0` followed by the content.
 */
export type ChecksumAlgorithm = 'sha256' | 'git-sha1';

export interface Checksum {
  algorithm: ChecksumAlgorithm;
  /** Lower-case hex. */
  hex: string;
}

/** Git's blob id of `content`: what a hub lists as a small file's `oid`. */
export function gitBlobSha1(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

export function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The checksum of a file on disk, streamed (model files are tens to hundreds of megabytes). */
export async function hashFile(path: string, algorithm: ChecksumAlgorithm): Promise<string> {
  try {
    const hash = createHash(algorithm === 'sha256' ? 'sha256' : 'sha1');
    if (algorithm === 'git-sha1') hash.update(`blob ${statSync(path).size}\0`);
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } catch (error) {
    throw toIoError(path, error, 'read');
  }
}

/** Whether the file on disk has the checksum; the hex found either way. */
export async function checkFile(path: string, expected: Checksum): Promise<{ ok: boolean; found: string }> {
  const found = await hashFile(path, expected.algorithm);
  return { ok: found === expected.hex.toLowerCase(), found };
}
