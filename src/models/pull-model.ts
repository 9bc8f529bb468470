import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../archive/write.js';
import { MoonError, describeError, toIoError } from '../errors.js';
import { tryAcquireLock } from '../lock/pid-lock.js';
import { type Hub, type HubFile, downloadFile, fileUrl, listHubFiles } from './hub-client.js';
import { describeModelFolder } from './list-models.js';
import { MANIFEST_FILE, MANIFEST_FORMAT, type ManifestFile, type ModelManifest, readManifest, renderManifest } from './manifest.js';
import { type ModelDtype, chooseModelFiles, expectedChecksum, readHiddenSize } from './model-files.js';
import { modelDirOf, resolvePullTarget, stagingDirOf } from './model-name.js';
import { removeFolderInHome } from './remove-model.js';
import { checkFile } from './verify.js';

/**
 * `moon models pull`: a named embedding model from the hub into $MOON_HOME/models/<name>. Only what the embedder
 * needs is fetched, into a staging folder (`.pull-<name>`), each file resumable (`<file>.part`, `Range`) and checked
 * against the hub's checksum; the model's folder appears, by one rename, only when every file is verified, with a
 * manifest (moon-model.json). A model already there is not fetched again.
 */
export const DEFAULT_REVISION = 'main';
/** What the staging folder is for: a changed plan (another revision, dtype or file) starts it afresh. */
const PLAN_FILE = 'pull-plan.json';

export interface PullRequest {
  /** A known name or a hub repo `owner/name`; default the default model. */
  spec?: string | undefined;
  /** Which ONNX file: default the quantised one when the repo has it. */
  dtype?: ModelDtype | undefined;
  revision?: string | undefined;
  onProgress?: (progress: PullProgress) => void;
}

export interface PullProgress {
  /** The file being fetched (repo path). */
  file: string;
  /** Bytes of the whole model on disk so far, and in all. */
  done: number;
  total: number;
}

export interface PullResult {
  name: string;
  /** null for a folder copied in by hand. */
  repo: string | null;
  revision: string | null;
  dtype: string | null;
  dims: number | null;
  dir: string;
  /** `pulled`: fetched (or finished) now; `present`: it was there already, nothing fetched. */
  status: 'pulled' | 'present';
  files: { path: string; size: number }[];
  bytes: number;
  /** Bytes fetched by this run, and bytes an earlier, interrupted run had fetched already. */
  fetched_bytes: number;
  resumed_bytes: number;
}

export interface PullPlace {
  home: string;
  modelsDir: string;
  hub: Hub;
  nowMs: number;
}

export async function pullModel(place: PullPlace, request: PullRequest): Promise<PullResult> {
  const { modelsDir, hub } = place;
  const ref = resolvePullTarget(request.spec);
  const revision = request.revision ?? DEFAULT_REVISION;
  const dir = modelDirOf(modelsDir, ref.name);
  if (existsSync(dir)) return describePresent(dir, ref.name, ref.repo, request.dtype);
  try {
    mkdirSync(modelsDir, { recursive: true });
  } catch (error) {
    throw toIoError(modelsDir, error, 'create');
  }
  const lockPath = join(modelsDir, `.pull-${ref.name}.lock`);
  const taken = tryAcquireLock(lockPath, { pid: process.pid, repo: ref.repo });
  if (!taken.acquired) {
    const owner = taken.owner.state === 'held' ? ` (pid ${taken.owner.payload.pid})` : '';
    throw new MoonError('busy', `another moon models pull of ${ref.name} is running${owner}`, { hint: `wait for it, or remove ${lockPath} if no such process runs` });
  }
  try {
    const tree = await listHubFiles(hub, ref.repo, revision);
    const plan = chooseModelFiles(tree, ref.repo, request.dtype);
    const staging = stagingDirOf(modelsDir, ref.name);
    startStaging(place.home, staging, { repo: ref.repo, revision, dtype: plan.dtype, files: plan.files });
    let done = 0;
    let fetched = 0;
    let resumed = 0;
    for (const file of plan.files) {
      const target = join(staging, ...file.path.split('/'));
      const before = done;
      request.onProgress?.({ file: file.path, done, total: plan.bytes });
      if (await hasVerifiedFile(target, file)) {
        done += file.size;
        resumed += file.size;
        continue;
      }
      const url = fileUrl(hub, ref.repo, revision, file.path);
      const part = `${target}.part`;
      mkdirSync(dirname(target), { recursive: true });
      const outcome = await downloadFile(hub, {
        url,
        path: file.path,
        partPath: part,
        size: file.size,
        onBytes: (bytes) => request.onProgress?.({ file: file.path, done: before + bytes, total: plan.bytes }),
      });
      fetched += outcome.fetched;
      resumed += outcome.resumedFrom;
      const expected = expectedChecksum(file);
      const check = await checkFile(part, expected);
      if (!check.ok) {
        rmSync(part, { force: true });
        throw new MoonError('io', `${file.path}: checksum mismatch for ${url}: the hub states ${expected.algorithm} ${expected.hex}, the download has ${check.found}; the partial file was deleted`, {
          hint: 'run the command again to fetch it afresh; if it fails the same way, something between here and the hub changes the bytes',
        });
      }
      try {
        renameSync(part, target);
      } catch (error) {
        throw toIoError(target, error, 'write');
      }
      done += file.size;
    }
    request.onProgress?.({ file: '', done, total: plan.bytes });
    const manifest: ModelManifest = {
      format: MANIFEST_FORMAT,
      name: ref.name,
      repo: ref.repo,
      revision,
      endpoint: hub.endpoint,
      dtype: plan.dtype,
      dims: readDims(join(staging, 'config.json')),
      files: plan.files.map(toManifestFile),
      pulled_at: new Date(place.nowMs).toISOString(),
    };
    writeFileAtomic(join(staging, MANIFEST_FILE), renderManifest(manifest), 0o644);
    rmSync(join(staging, PLAN_FILE), { force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      throw toIoError(dir, error, 'create');
    }
    return {
      name: ref.name,
      repo: ref.repo,
      revision,
      dtype: plan.dtype,
      dims: manifest.dims,
      dir,
      status: 'pulled',
      files: plan.files.map((file) => ({ path: file.path, size: file.size })),
      bytes: plan.bytes,
      fetched_bytes: fetched,
      resumed_bytes: resumed,
    };
  } finally {
    taken.lock.release();
  }
}

/** A model folder that is there already: nothing is fetched; a different repo or dtype asked for is an error. */
function describePresent(dir: string, name: string, repo: string, dtype: ModelDtype | undefined): PullResult {
  const manifest = readManifest(dir);
  if (manifest && manifest.repo !== repo) {
    throw new MoonError('bad_input', `${dir} holds ${manifest.repo}, not ${repo}`, { hint: `\`moon models remove ${name}\` first to replace it` });
  }
  if (manifest && dtype && manifest.dtype !== dtype) {
    throw new MoonError('bad_input', `${dir} holds the ${manifest.dtype} model of ${repo}, not ${dtype}`, { hint: `\`moon models remove ${name}\` first, then pull it with --dtype ${dtype}` });
  }
  if (manifest) {
    const missing = manifest.files.filter((file) => sizeOf(join(dir, ...file.path.split('/'))) !== file.size);
    if (missing.length > 0) {
      throw new MoonError('io', `${dir} lacks or has changed ${missing.map((file) => file.path).join(', ')} since it was pulled`, {
        hint: `\`moon models remove ${name}\`, then pull it again`,
      });
    }
  }
  const listing = describeModelFolder(name, dir);
  return {
    name,
    repo: listing.repo,
    revision: listing.revision,
    dtype: listing.dtype,
    dims: listing.dims,
    dir,
    status: 'present',
    files: manifest ? manifest.files.map((file) => ({ path: file.path, size: file.size })) : [],
    bytes: listing.bytes,
    fetched_bytes: 0,
    resumed_bytes: 0,
  };
}

/**
 * The staging folder for this plan: kept from an interrupted run of the same plan (its verified files and part files
 * are reused), started afresh when the plan changed (another revision, dtype or file version).
 */
function startStaging(home: string, staging: string, plan: { repo: string; revision: string; dtype: ModelDtype; files: HubFile[] }): void {
  const wanted = JSON.stringify(plan);
  const planPath = join(staging, PLAN_FILE);
  if (existsSync(staging)) {
    let kept: string | null = null;
    try {
      kept = readFileSync(planPath, 'utf8');
    } catch {
      // no plan: left by something else; start afresh
    }
    if (kept === wanted) return;
    removeFolderInHome(home, staging);
  }
  try {
    mkdirSync(staging, { recursive: true });
  } catch (error) {
    throw toIoError(staging, error, 'create');
  }
  writeFileAtomic(planPath, wanted, 0o644);
}

/** A file an earlier run finished (renamed from its part file) and that still has its checksum. */
async function hasVerifiedFile(path: string, file: HubFile): Promise<boolean> {
  if (sizeOf(path) !== file.size) {
    rmSync(path, { force: true });
    return false;
  }
  if ((await checkFile(path, expectedChecksum(file))).ok) return true;
  rmSync(path, { force: true });
  return false;
}

function toManifestFile(file: HubFile): ManifestFile {
  return file.lfs ? { path: file.path, size: file.size, sha256: file.lfs.oid } : { path: file.path, size: file.size, git_sha1: file.oid };
}

function readDims(configPath: string): number | null {
  try {
    return readHiddenSize(JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>) ?? null;
  } catch (error) {
    throw new MoonError('bad_input', `${configPath}: the model's config.json is not valid JSON (${describeError(error)})`);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}
