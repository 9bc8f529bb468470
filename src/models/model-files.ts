import { MoonError } from '../errors.js';
import type { HubFile } from './hub-client.js';
import type { Checksum } from './verify.js';

/**
 * Which files of a hub repo an embedder needs: the model's config, its tokenizer, and ONE ONNX file — the quantised
 * one unless fp32 is asked for (a quarter of the size, and what small sentence-embedding models ship for this).
 */
export const MODEL_DTYPES = ['q8', 'fp32'] as const;
export type ModelDtype = (typeof MODEL_DTYPES)[number];

/** The ONNX file of each dtype, named as transformers.js looks for it. */
export const ONNX_FILES: Readonly<Record<ModelDtype, string>> = {
  q8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
};

/**
 * Every ONNX file name transformers.js knows, by dtype, in the order a folder's file is picked when it holds several
 * (a folder copied in by hand, or named by embed.model_path, may hold any of them).
 */
export const ONNX_DTYPE_FILES: readonly (readonly [dtype: string, file: string])[] = [
  ['fp32', 'model.onnx'],
  ['q8', 'model_quantized.onnx'],
  ['fp16', 'model_fp16.onnx'],
  ['int8', 'model_int8.onnx'],
  ['uint8', 'model_uint8.onnx'],
  ['q4', 'model_q4.onnx'],
  ['q4f16', 'model_q4f16.onnx'],
  ['bnb4', 'model_bnb4.onnx'],
];

/** The dtype of the ONNX file a folder's `onnx/` holds (by the names in it), or undefined when it holds none. */
export function findOnnxDtype(onnxFileNames: readonly string[]): string | undefined {
  return ONNX_DTYPE_FILES.find(([, file]) => onnxFileNames.includes(file))?.[0];
}

/** A model config's vector width: `hidden_size` (BERT and most encoders), `d_model` or `dim`. */
export function readHiddenSize(config: Record<string, unknown>): number | undefined {
  const size = config.hidden_size ?? config.d_model ?? config.dim;
  return typeof size === 'number' && Number.isInteger(size) && size > 0 ? size : undefined;
}

const REQUIRED = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
const OPTIONAL = ['special_tokens_map.json'] as const;

export interface ModelFilePlan {
  dtype: ModelDtype;
  files: HubFile[];
  /** Bytes of every file together. */
  bytes: number;
}

export function parseDtype(value: string): ModelDtype {
  if ((MODEL_DTYPES as readonly string[]).includes(value)) return value as ModelDtype;
  throw new MoonError('bad_usage', `--dtype: "${value}" is not one of ${MODEL_DTYPES.join(', ')}`, { field: 'dtype' });
}

/**
 * The files to pull from a repo's listing. `dtype` unset: the quantised ONNX file when the repo has one, else the
 * fp32 one; asked for and absent: an error listing the ONNX files there are.
 */
export function chooseModelFiles(tree: readonly HubFile[], repo: string, dtype?: ModelDtype): ModelFilePlan {
  const byPath = new Map(tree.map((file) => [file.path, file]));
  const missing = REQUIRED.filter((path) => !byPath.has(path));
  if (missing.length > 0) {
    throw new MoonError('bad_input', `${repo} has no ${missing.join(', ')}: not a model moon can run (it needs an ONNX export with its tokenizer)`, {
      hint: 'pick a repo that transformers.js can load, such as one of Xenova/…',
    });
  }
  const chosen: ModelDtype | undefined = dtype ?? MODEL_DTYPES.find((candidate) => byPath.has(ONNX_FILES[candidate]));
  if (chosen === undefined || !byPath.has(ONNX_FILES[chosen])) {
    const onnx = tree.map((file) => file.path).filter((path) => path.endsWith('.onnx'));
    const wanted = chosen ? ONNX_FILES[chosen] : MODEL_DTYPES.map((candidate) => ONNX_FILES[candidate]).join(' or ');
    throw new MoonError('bad_input', `${repo} has no ${wanted}${onnx.length > 0 ? ` (its ONNX files: ${onnx.join(', ')})` : ' (no ONNX file at all)'}`, {
      hint: chosen && dtype ? `try --dtype ${MODEL_DTYPES.find((other) => other !== chosen && byPath.has(ONNX_FILES[other])) ?? 'another'}, or another repo` : 'pick a repo with an ONNX export (onnx/model.onnx)',
    });
  }
  const paths = [...REQUIRED, ...OPTIONAL.filter((path) => byPath.has(path)), ONNX_FILES[chosen]];
  const files = paths.map((path) => byPath.get(path)!);
  return { dtype: chosen, files, bytes: files.reduce((sum, file) => sum + file.size, 0) };
}

/** The checksum the hub states for a file: SHA-256 for an LFS file, the git blob id otherwise. */
export function expectedChecksum(file: HubFile): Checksum {
  return file.lfs ? { algorithm: 'sha256', hex: file.lfs.oid } : { algorithm: 'git-sha1', hex: file.oid };
}
