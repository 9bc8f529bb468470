#!/usr/bin/env node
// LoCoMo → Claude Code JSONL transcripts, one file per LoCoMo session.
//
//   node bench/recall-eval/convert.mjs --out DIR [--data DIR] [--samples conv-26,conv-30]
//
// The LoCoMo data is CC BY-NC 4.0: it is read from ../shared/eval (relative to the repo root) and the transcripts
// are written only to the folder given (a temp dir or the git-ignored bench/out/), never into the repository.
//
// One record per turn, in <out>/<sample_id>/<sample_id>-s<N>.jsonl:
//   speaker_a → {"type":"user", "message":{"role":"user","content":"<speaker>: <text>"}, ...}
//   speaker_b → {"type":"assistant", "requestId":"req_...", "message":{"id":"msg_...","role":"assistant",
//                "content":[{"type":"text","text":"<speaker>: <text>"}]}, ...}
// uuid = "<sample_id>:<dia_id>" (recall's message_ids map straight back to the qrels), sessionId = "<sample_id>-s<N>",
// cwd = "/locomo/<sample_id>" (so the project is the sample id), timestamps = session_N_date_time (UTC) + 30 s per turn.
// Every assistant record has its own message.id and requestId, so the streaming merge never joins two turns.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(here, '..', '..');

/** Seconds between consecutive turns of one session. */
export const TURN_STEP_MS = 30_000;

const MONTHS = {
  january: 0, february: 1, march: 2, april: 3, may: 4, june: 5,
  july: 6, august: 7, september: 8, october: 9, november: 10, december: 11,
};

/**
 * "1:56 pm on 8 May, 2023" → epoch ms, read as UTC. Also accepts "8 May 2023" and a 24-hour "13:56 on ...".
 * Throws on anything else: a silent fallback would shift every timestamp of a session.
 */
export function parseLocomoDateTime(text) {
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text ?? '');
  const dateOnly = match ? null : /^\s*(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/.exec(text ?? '');
  if (!match && !dateOnly) throw new Error(`unrecognised LoCoMo date/time: ${JSON.stringify(text)}`);
  let hour = 0;
  let minute = 0;
  let day;
  let monthName;
  let year;
  if (match) {
    hour = Number(match[1]);
    minute = Number(match[2]);
    const meridiem = match[3]?.toLowerCase();
    if (meridiem) {
      if (hour < 1 || hour > 12) throw new Error(`bad hour in ${JSON.stringify(text)}`);
      hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
    }
    [day, monthName, year] = [Number(match[4]), match[5], Number(match[6])];
  } else {
    [day, monthName, year] = [Number(dateOnly[1]), dateOnly[2], Number(dateOnly[3])];
  }
  const month = MONTHS[monthName.toLowerCase()];
  if (month === undefined) throw new Error(`unknown month in ${JSON.stringify(text)}`);
  if (hour > 23 || minute > 59) throw new Error(`bad time in ${JSON.stringify(text)}`);
  const ms = Date.UTC(year, month, day, hour, minute);
  if (new Date(ms).getUTCDate() !== day) throw new Error(`bad day in ${JSON.stringify(text)}`);
  return ms;
}

/** The eval folder: --data DIR (the folder holding locomo-dev/, or locomo-dev/ itself), else <repo>/../shared/eval. */
export function resolveDataDir(override) {
  const base = resolve(override ?? join(REPO, '..', 'shared', 'eval'));
  if (existsSync(join(base, 'locomo-dev', 'locomo-dev.json'))) return join(base, 'locomo-dev');
  if (existsSync(join(base, 'locomo-dev.json'))) return base;
  throw new Error(`no locomo-dev.json under ${base} (pass --data DIR: the folder holding locomo-dev/ or locomo-dev/ itself)`);
}

/** { samples, qrels } from locomo-dev.json and qrels.jsonl; `only` keeps those sample ids. */
export function loadLocomo(dataDir, only = null) {
  const samples = JSON.parse(readFileSync(join(dataDir, 'locomo-dev.json'), 'utf8'));
  const qrels = readFileSync(join(dataDir, 'qrels.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  const keep = only ? new Set(only) : null;
  if (keep) {
    const known = new Set(samples.map((sample) => sample.sample_id));
    for (const id of keep) if (!known.has(id)) throw new Error(`--samples: unknown sample ${id} (known: ${[...known].join(', ')})`);
  }
  return {
    samples: keep ? samples.filter((sample) => keep.has(sample.sample_id)) : samples,
    qrels: keep ? qrels.filter((row) => keep.has(row.sample_id)) : qrels,
  };
}

export const sessionIdFor = (sampleId, n) => `${sampleId}-s${n}`;
export const messageIdFor = (sampleId, diaId) => `${sampleId}:${diaId}`;

/** "<sample>:<dia_id>" → dia_id when it belongs to sampleId, else null. */
export function diaIdOf(messageId, sampleId) {
  const prefix = `${sampleId}:`;
  return typeof messageId === 'string' && messageId.startsWith(prefix) ? messageId.slice(prefix.length) : null;
}

/** "<sample>-s<N>" → N when it belongs to sampleId, else null. */
export function sessionNumberOf(sessionId, sampleId) {
  const match = typeof sessionId === 'string' ? /^(.*)-s(\d+)$/.exec(sessionId) : null;
  return match && match[1] === sampleId ? Number(match[2]) : null;
}

/** The text a turn becomes: "<speaker>: <text>", plus " [image: <caption>]" for image turns. */
export function turnText(turn) {
  const caption = typeof turn.blip_caption === 'string' && turn.blip_caption.trim() !== '' ? ` [image: ${turn.blip_caption.trim()}]` : '';
  return `${turn.speaker}: ${turn.text ?? ''}${caption}`;
}

const safe = (value) => value.replace(/[^A-Za-z0-9]+/g, '_');

/**
 * One sample → its sessions (only those with turns), each with its JSONL records.
 * Returns { sampleId, sessions: [{ n, sessionId, records, startMs, endMs, turns }], lastEndMs }.
 */
export function convertSample(sample) {
  const sampleId = sample.sample_id;
  const conversation = sample.conversation;
  const cwd = `/locomo/${sampleId}`;
  const numbers = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter(Boolean)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  const sessions = [];
  for (const n of numbers) {
    const turns = conversation[`session_${n}`];
    if (!Array.isArray(turns) || turns.length === 0) continue;
    const startMs = parseLocomoDateTime(conversation[`session_${n}_date_time`]);
    const sessionId = sessionIdFor(sampleId, n);
    let parent = null;
    const records = turns.map((turn, index) => {
      const uuid = messageIdFor(sampleId, turn.dia_id);
      const base = {
        parentUuid: parent,
        isSidechain: false,
        cwd,
        sessionId,
        uuid,
        timestamp: new Date(startMs + index * TURN_STEP_MS).toISOString(),
      };
      parent = uuid;
      const text = turnText(turn);
      if (turn.speaker === conversation.speaker_b) {
        return {
          ...base,
          type: 'assistant',
          requestId: `req_${safe(sampleId)}_${safe(turn.dia_id)}`,
          message: {
            id: `msg_${safe(sampleId)}_${safe(turn.dia_id)}`,
            type: 'message',
            role: 'assistant',
            model: 'locomo',
            content: [{ type: 'text', text }],
          },
        };
      }
      return { ...base, type: 'user', message: { role: 'user', content: text } };
    });
    sessions.push({ n, sessionId, records, startMs, endMs: startMs + (turns.length - 1) * TURN_STEP_MS, turns: turns.length });
  }
  const lastEndMs = Math.max(...sessions.map((session) => session.endMs));
  return { sampleId, sessions, lastEndMs };
}

/**
 * Write every sample's sessions under outDir/<sample_id>/. Returns per-sample facts the harness needs:
 * { samples: { [id]: { sessions, turns, lastEndMs, folder, speakers } }, files, turns }.
 */
export function writeTranscripts(samples, outDir) {
  const summary = { samples: {}, files: 0, turns: 0 };
  for (const sample of samples) {
    const converted = convertSample(sample);
    const folder = join(outDir, converted.sampleId);
    mkdirSync(folder, { recursive: true });
    for (const session of converted.sessions) {
      const path = join(folder, `${session.sessionId}.jsonl`);
      writeFileSync(path, `${session.records.map((record) => JSON.stringify(record)).join('\n')}\n`);
      summary.files += 1;
      summary.turns += session.turns;
    }
    summary.samples[converted.sampleId] = {
      sessions: converted.sessions.length,
      turns: converted.sessions.reduce((sum, session) => sum + session.turns, 0),
      lastEndMs: converted.lastEndMs,
      folder,
      speakers: [sample.conversation.speaker_a, sample.conversation.speaker_b],
    };
  }
  return summary;
}

function main(argv) {
  const args = { out: null, data: null, samples: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') {
      console.log('usage: node bench/recall-eval/convert.mjs --out DIR [--data DIR] [--samples id,id]');
      return 0;
    }
    if (flag === '--out') args.out = argv[++i];
    else if (flag === '--data') args.data = argv[++i];
    else if (flag === '--samples') args.samples = argv[++i].split(',').filter(Boolean);
    else throw new Error(`unknown flag ${flag}`);
  }
  if (!args.out) throw new Error('--out DIR is required (a temp dir or bench/out/...: never commit the LoCoMo data)');
  const { samples } = loadLocomo(resolveDataDir(args.data), args.samples);
  const summary = writeTranscripts(samples, resolve(args.out));
  console.log(`wrote ${summary.files} transcripts, ${summary.turns} turns, to ${resolve(args.out)}`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exitCode = 2;
  }
}
