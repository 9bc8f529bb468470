import type { Command } from 'commander';
import { DEFAULT_MODEL_NAME, MODEL_DTYPES, type ModelsListing, type PullResult, type RecallMeaning, listKnownModels, parseDtype } from '../../../index.js';
import type { CliContext } from '../context.js';
import { escapeControl, plural } from '../format.js';
import { createProgress, formatBytes, printJson } from '../output.js';

interface PullFlags {
  dtype?: string;
  revision?: string;
  json?: boolean;
}

/** `moon models pull|list|remove`: the embedding models kept in $MOON_HOME/models for embed.provider = "transformers". */
export function registerModels(program: Command, context: CliContext): void {
  const models = program.command('models').description('embedding models for recall by meaning: pull one from the model hub, list them, remove one');
  const known = listKnownModels().map((model) => model.name).join(', ');
  models
    .command('pull')
    .description(`download an embedding model into $MOON_HOME/models (default ${DEFAULT_MODEL_NAME}; also ${known}, or any hub repo OWNER/NAME)`)
    .argument('[name]', `a model name or a hub repo OWNER/NAME (default ${DEFAULT_MODEL_NAME})`)
    .option('--dtype <dtype>', `which ONNX file: ${MODEL_DTYPES.join(' (quantised, the default when there is one) or ')}`)
    .option('--revision <rev>', 'the branch, tag or commit on the hub (default main)')
    .option('--json', 'print the result as JSON')
    .action(async (name: string | undefined, flags: PullFlags) => {
      const dtype = flags.dtype === undefined ? undefined : parseDtype(flags.dtype);
      const bar = createProgress(context.io, `pulling ${name ?? DEFAULT_MODEL_NAME}`, formatBytes);
      let drawn = false;
      let result: PullResult;
      try {
        result = await context.moon().upkeep.pullModel({
          spec: name,
          dtype,
          revision: flags.revision,
          onProgress: ({ done, total }) => {
            drawn = true;
            bar(done, total);
          },
        });
      } finally {
        if (drawn) bar.finish();
      }
      if (flags.json) return printJson(context.io, result);
      context.io.out(formatPull(result, context.config().embed));
    });
  models
    .command('list')
    .description('the models in $MOON_HOME/models (size, dims, dtype) and what recall uses')
    .option('--json', 'print {dir, models, recall} as JSON')
    .action(async (flags: { json?: boolean }) => {
      const listing = await context.moon().upkeep.listModels();
      if (flags.json) return printJson(context.io, listing);
      context.io.out(formatList(listing));
    });
  models
    .command('remove')
    .description('delete a model from $MOON_HOME/models (and what an unfinished pull of it left)')
    .argument('<name>', 'the model name (as `moon models list` shows it)')
    .option('--json', 'print {name, dir, files} as JSON')
    .action(async (name: string, flags: { json?: boolean }) => {
      const report = await context.moon().upkeep.removeModel(name);
      if (flags.json) return printJson(context.io, report);
      context.io.out(`removed ${clean(report.name)} (${plural(report.files, 'file')}) from ${clean(report.dir)}`);
    });
}

const clean = (text: string): string => escapeControl(text, { oneLine: true });

function describeModel(result: { repo: string | null; revision: string | null; dtype: string | null; dims: number | null; bytes: number }): string {
  const from = result.repo ? `${result.repo}@${result.revision ?? 'main'}` : 'copied in by hand';
  return [from, result.dtype ?? 'no ONNX file', result.dims === null ? 'dims unknown' : `${result.dims} dims`, formatBytes(result.bytes)].map(clean).join(', ');
}

function formatPull(result: PullResult, embed: { provider: string; model?: string | undefined; model_path?: string | undefined }): string {
  const lines =
    result.status === 'present'
      ? [`${clean(result.name)}: already in ${clean(result.dir)} (${describeModel(result)}); nothing fetched`]
      : [
          `${clean(result.name)}: pulled into ${clean(result.dir)} (${describeModel(result)}; ${plural(result.files.length, 'file')}, fetched ${formatBytes(result.fetched_bytes)}${result.resumed_bytes > 0 ? `, ${formatBytes(result.resumed_bytes)} kept from an earlier run` : ''})`,
        ];
  const inUse = embed.provider === 'transformers' && !embed.model_path && (embed.model === undefined ? result.name === DEFAULT_MODEL_NAME : embed.model.split('/').at(-1) === result.name);
  lines.push(
    inUse
      ? 'recall uses it (embed.provider = "transformers"); `moon index` embeds the entries not embedded yet'
      : `to use it: set embed.provider = "transformers" and embed.model = "${clean(result.name)}" in moon.toml, then run \`moon index\``,
  );
  return lines.join('\n');
}

function formatList(listing: ModelsListing): string {
  const lines: string[] = [];
  if (listing.models.length === 0) lines.push(`no models in ${clean(listing.dir)} (\`moon models pull\` fetches ${DEFAULT_MODEL_NAME})`);
  else {
    const rows = listing.models.map((model) => [
      model.name,
      model.dims === null ? '-' : String(model.dims),
      model.dtype ?? '-',
      formatBytes(model.bytes),
      model.repo ? `${model.repo}@${model.revision ?? 'main'}` : '(copied in by hand)',
    ].map(clean));
    const header = ['NAME', 'DIMS', 'DTYPE', 'SIZE', 'FROM'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    const render = (row: string[]): string => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
    lines.push(render(header), ...rows.map(render));
  }
  lines.push(`recall: ${describeMeaning(listing.recall)}`);
  return lines.join('\n');
}

/** `words only`, or `words + meaning via transformers (bge-small-en-v1.5)`. */
export function describeMeaning(meaning: RecallMeaning): string {
  if (meaning.provider === 'none') return 'words only (embed.provider = "none")';
  const model = meaning.model ?? meaning.dir;
  if (meaning.present === false) return `words only: embed.provider = "transformers" wants the model "${clean(meaning.model ?? '')}", which is not pulled (run: ${clean(meaning.pull ?? 'moon models pull')})`;
  return `words + meaning via ${meaning.provider}${model ? ` (${clean(model)})` : ''}`;
}
