import { MoonError } from '../errors.js';

/**
 * Reads projection markdown back (for `--reproject` and recall snippets): v1 files (seed 000 "Current Format",
 * `## Signals` list) and v2 files, with or without the later optional fields (`title`, `agent_type`,
 * `agent_description`): every key is read as written, a missing one is simply absent. Only the flat frontmatter
 * the renderers write is supported — quoted strings, numbers, booleans, null and one-line flow lists — not
 * general YAML.
 */

export interface ProjectionSignal {
  /** `user`, `assistant`, `tool`, or `tool:<name>` for v2 tool transactions. */
  role: string;
  text: string;
}

export interface ParsedProjection {
  version: 1 | 2;
  frontmatter: Record<string, unknown>;
  /** v1: the `## Signals` list. v2: user queries, assistant responses and tool transactions, in document order. */
  signals?: ProjectionSignal[];
}

/** Split a flow list body on commas outside quotes. */
function splitFlowItems(body: string): string[] {
  const items: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < body.length; i += 1) {
    const ch = body[i] as string;
    if (quote) {
      current += ch;
      if (ch === '\\' && quote === '"') {
        current += body[i + 1] ?? '';
        i += 1;
      } else if (ch === quote) {
        quote = null;
      }
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ',') {
      items.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim() !== '') items.push(current.trim());
  return items;
}

/** One YAML scalar or flow list as written by the renderers. */
export function parseYamlValue(raw: string): unknown {
  const value = raw.trim();
  if (value === '' || value === '~' || value === 'null') return null;
  if (value === 'true' || value === 'false') return value === 'true';
  if (value.startsWith('"')) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new MoonError('bad_input', `projection frontmatter has a malformed quoted string: ${value.slice(0, 80)}`);
    }
  }
  if (value.startsWith("'")) return value.slice(1, value.endsWith("'") && value.length > 1 ? -1 : undefined).replace(/''/g, "'");
  if (value.startsWith('[')) {
    if (!value.endsWith(']')) throw new MoonError('bad_input', `projection frontmatter has an unterminated list: ${value.slice(0, 80)}`);
    return splitFlowItems(value.slice(1, -1)).map(parseYamlValue);
  }
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

/** Frontmatter block and the body after it. Throws when the file does not open with `---`. */
export function splitFrontmatter(markdown: string): { header: string[]; body: string[] } {
  const lines = markdown.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') {
    throw new MoonError('bad_input', 'projection has no YAML frontmatter: the file must start with a "---" line', {
      hint: 'only moon projection markdown (moon_archive_projection 1 or 2) can be parsed',
    });
  }
  const close = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (close < 0) throw new MoonError('bad_input', 'projection frontmatter is not closed: no second "---" line');
  return { header: lines.slice(1, close), body: lines.slice(close + 1) };
}

export function parseFrontmatter(header: readonly string[]): Record<string, unknown> {
  const frontmatter: Record<string, unknown> = {};
  for (const line of header) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const match = /^([A-Za-z_][\w-]*):\s?(.*)$/.exec(line);
    if (!match) throw new MoonError('bad_input', `projection frontmatter line is not "key: value": ${line.slice(0, 80)}`);
    frontmatter[match[1] as string] = parseYamlValue(match[2] as string);
  }
  return frontmatter;
}

/** Lines of the `## <title>` section (up to the next `## ` heading). */
export function readSection(body: readonly string[], title: string): string[] {
  const start = body.findIndex((line) => line.trim() === `## ${title}`);
  if (start < 0) return [];
  const rest = body.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  return end < 0 ? rest : rest.slice(0, end);
}

function readV1Signals(body: readonly string[]): ProjectionSignal[] {
  return readSection(body, 'Signals').flatMap((line) => {
    const match = /^- \[([^\]]+)\]\s?(.*)$/.exec(line);
    return match ? [{ role: match[1] as string, text: match[2] as string }] : [];
  });
}

/**
 * v2 list items keep their text without the leading `[HH:mm:ssZ]` stamp; `- (none)` placeholders are skipped.
 * A patch's ```diff block is indented under its transaction, so its `- removed` lines never read as items.
 */
function readV2Signals(body: readonly string[]): ProjectionSignal[] {
  const signals: ProjectionSignal[] = [];
  let role: string | null = null;
  const sections = [...readSection(body, 'Conversations'), ...readSection(body, 'Tool Activity')];
  for (const line of sections) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) {
      const title = (heading[1] as string).trim();
      role = title === 'User Queries' ? 'user' : title === 'Assistant Responses' ? 'assistant' : `tool:${title}`;
      continue;
    }
    const item = /^- (?:\[[^\]]*\] )?(.*)$/.exec(line);
    if (role && item && line !== '- (none)') signals.push({ role, text: item[1] as string });
  }
  return signals;
}

/** Parse a v1 or v2 projection. Throws MoonError('bad_input') naming the problem for anything else. */
export function parseProjection(markdown: string): ParsedProjection {
  const { header, body } = splitFrontmatter(markdown);
  const frontmatter = parseFrontmatter(header);
  const version = frontmatter['moon_archive_projection'];
  if (version === undefined) throw new MoonError('bad_input', 'projection frontmatter has no moon_archive_projection field');
  if (version === 1) return { version: 1, frontmatter, signals: readV1Signals(body) };
  if (version === 2) return { version: 2, frontmatter, signals: readV2Signals(body) };
  throw new MoonError('bad_input', `unsupported moon_archive_projection version: ${JSON.stringify(version)}`);
}
