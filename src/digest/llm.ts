import { z } from 'zod';
import type { Entry } from '../model.js';
import type { Provider } from '../llm/provider.js';
import { lineFrom } from './heuristic.js';
import type { DigestBody, DigestChange, DigestLine } from '../records/digests.js';

/**
 * The digest a generative provider writes: the session's entries, each with its id, go in; JSON comes out, is
 * validated with zod, and every line must cite entry ids of this session. Anything else — no JSON, the wrong
 * shape, a line citing nothing real — throws, and the caller falls back to the heuristic digest.
 */

const PROMPT_BUDGET_CHARS = 24_000;
const ENTRY_CHARS = 400;

const Line = z.object({ text: z.string().min(1).max(600), message_ids: z.array(z.string()).min(1).max(20) });
const Answer = z.object({
  title: z.string().min(1).max(200),
  intent: Line.nullable(),
  outcome: Line.extend({ status: z.enum(['succeeded', 'failed', 'unknown']) }),
  changes: z
    .array(Line.extend({ kind: z.enum(['file', 'command']), target: z.string().min(1).max(400), status: z.enum(['ok', 'failed', 'unknown']) }))
    .max(40),
  decisions: z.array(Line).max(12),
  gotchas: z.array(Line).max(12),
  next_steps: z.array(Line).max(12),
});

const SYSTEM =
  'You summarise one finished coding-agent session into a run digest. Answer with one JSON object only, no prose. ' +
  'Every line must cite the ids (in square brackets in the transcript) of the entries it is based on.';

export function digestPrompt(entries: readonly Entry[]): string {
  const rendered: string[] = [];
  let used = 0;
  for (const entry of entries) {
    if (entry.sidechain || entry.kind === 'reasoning') continue;
    const who = entry.toolName ? `tool:${entry.toolName}` : entry.role;
    const result = entry.result !== null ? ` → ${entry.exitCode !== null ? `exit ${entry.exitCode}: ` : ''}${entry.result}` : '';
    const line = `[${entry.id}] ${who}: ${`${entry.text}${result}`.replace(/\s+/g, ' ').slice(0, ENTRY_CHARS)}`;
    if (used + line.length > PROMPT_BUDGET_CHARS) {
      rendered.push('[…] (later entries omitted)');
      break;
    }
    rendered.push(line);
    used += line.length + 1;
  }
  return [
    'Transcript (one entry per line):',
    ...rendered,
    '',
    'Return JSON with exactly these keys:',
    '{"title": str, "intent": {"text": str, "message_ids": [id]} | null,',
    ' "outcome": {"status": "succeeded"|"failed"|"unknown", "text": str, "message_ids": [id]},',
    ' "changes": [{"kind": "file"|"command", "target": str, "status": "ok"|"failed"|"unknown", "text": str, "message_ids": [id]}],',
    ' "decisions": [line], "gotchas": [line], "next_steps": [line]}  where line = {"text": str, "message_ids": [id]}.',
    'Gotchas are errors hit and how they were fixed. Use only ids that appear above.',
  ].join('\n');
}

/** Ask the provider; throws with the reason when the answer is not a valid digest. */
export async function buildLlmDigest(provider: Provider, entries: readonly Entry[]): Promise<{ title: string; body: DigestBody }> {
  const raw = await provider.complete(digestPrompt(entries), { json: true, system: SYSTEM, maxTokens: 2048 });
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripFence(raw));
  } catch {
    throw new Error('the answer is not JSON');
  }
  const checked = Answer.safeParse(parsed);
  if (!checked.success) throw new Error(`the answer does not have the digest shape (${checked.error.issues[0]?.path.join('.') ?? ''}: ${checked.error.issues[0]?.message ?? ''})`);
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const cite = (line: { text: string; message_ids: string[] }): DigestLine => {
    const sources = line.message_ids.map((id) => byId.get(id)).filter((entry): entry is Entry => entry !== undefined);
    if (sources.length === 0) throw new Error(`a line cites no entry of the session: ${JSON.stringify(line.message_ids.slice(0, 3))}`);
    return lineFrom(line.text, sources);
  };
  const answer = checked.data;
  return {
    title: answer.title,
    body: {
      intent: answer.intent ? cite(answer.intent) : null,
      outcome: { ...cite(answer.outcome), status: answer.outcome.status },
      changes: answer.changes.map((change): DigestChange => ({ ...cite(change), kind: change.kind, target: change.target, status: change.status })),
      decisions: answer.decisions.map(cite),
      gotchas: answer.gotchas.map(cite),
      next_steps: answer.next_steps.map(cite),
    },
  };
}

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}
