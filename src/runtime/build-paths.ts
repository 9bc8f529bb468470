import { readFileSync } from 'node:fs';

/**
 * Where moon's built files are, for the few modules that find a file beside the code (a worker, the build id,
 * bin/moon.js). Every such lookup goes through here: this module sits one folder below the build's root
 * (`dist/runtime/`), and so does every chunk of the hook bundle (`dist/hook/`, scripts/bundle-hook.mjs) it is
 * copied into — a path taken from a module's own URL elsewhere would be wrong inside the bundle.
 * Under the TypeScript test runner the root is `src/`, where no worker or build id exists (callers check).
 */
export const BUILD_ROOT = new URL('../', import.meta.url);

/** A file under the build's root: `fromBuild('ingest/worker.js')`, `fromBuild('../bin/moon.js')`. */
export function fromBuild(relative: string): URL {
  return new URL(relative, BUILD_ROOT);
}

let buildId: string | null = null;

/** This build's id (dist/build-id.json, written by `npm run build`); `dev` when running from sources. */
export function readBuildId(): string {
  buildId ??= readBuildIdOnDisk();
  return buildId;
}

/**
 * The build id on disk now, read again: a long-running process (the hook server) compares it with `readBuildId()`
 * to learn that its build was replaced under it.
 */
export function readBuildIdOnDisk(): string {
  try {
    const value = JSON.parse(readFileSync(fromBuild('build-id.json'), 'utf8')) as { build_uuid?: unknown };
    return typeof value.build_uuid === 'string' ? value.build_uuid : 'dev';
  } catch {
    return 'dev';
  }
}
