// LongMemEval (dev split): load the questions, derive their gold sessions and turns, and turn each haystack session
// into one Claude Code JSONL transcript. No moon calls here; longmemeval-run.mjs indexes and asks.
//
// The data (MIT) is read from ../shared/eval/longmemeval-dev/ (relative to the repo root) and the transcripts are
// written only to the folder given (the harness's temp dir), never into the repository.
//
// One record per turn, in <folder>/<session_id>.jsonl:
//   user      → {"type":"user", "message":{"role":"user","content":"<content>"}, ...}
//   assistant → {"type":"assistant", "requestId":"req_...", "message":{"id":"msg_...","role":"assistant",
//                "content":[{"type":"text","text":"<content>"}]}, ...}
// uuid = "<session_id>:<turn index>" (0-based; recall's message_ids are the gold turn ids), sessionId = the haystack
// session id, cwd = "/longmemeval", timestamps = the haystack date (read as UTC) + 30 s per turn.
// Every assistant record has its own message.id and requestId, so the streaming merge never joins two turns.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REPO, TURN_STEP_MS } from './convert.mjs';

export const LME_FILE = 'longmemeval-s-dev115.json.gz';
/** The working directory of every converted session: one project, so no query is filtered. */
export const LME_CWD = '/longmemeval';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * The data file: --lme-data PATH (the file itself, a folder holding it, or a folder holding longmemeval-dev/),
 * else <repo>/../shared/eval/longmemeval-dev/longmemeval-s-dev115.json.gz.
 */
export function resolveLongMemEvalFile(override) {
  const base = resolve(override ?? join(REPO, '..', 'shared', 'eval', 'longmemeval-dev'));
  const candidates = [base, join(base, LME_FILE), join(base, 'longmemeval-dev', LME_FILE)];
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
  if (!found) throw new Error(`no ${LME_FILE} at ${base} (pass --lme-data PATH: the file, or the folder holding it or longmemeval-dev/)`);
  return found;
}

/** The question list of a .json.gz (or plain .json) file; `first` keeps only the first N questions. */
export function loadLongMemEval(file, first = null) {
  const bytes = readFileSync(file);
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
  const questions = JSON.parse(text);
  if (!Array.isArray(questions)) throw new Error(`${file}: expected a JSON list of questions`);
  return first ? questions.slice(0, first) : questions;
}

/**
 * "2023/05/30 (Tue) 10:18" → epoch ms, read as UTC. Throws on anything else, and when the weekday does not match
 * the date: a silent fallback would shift every timestamp of a session.
 */
export function parseLmeDate(text) {
  const match = /^\s*(\d{4})\/(\d{1,2})\/(\d{1,2})\s+\((\w{3})\)\s+(\d{1,2}):(\d{2})\s*$/.exec(text ?? '');
  if (!match) throw new Error(`unrecognised LongMemEval date: ${JSON.stringify(text)}`);
  const [year, month, day, weekday, hour, minute] = [Number(match[1]), Number(match[2]), Number(match[3]), match[4], Number(match[5]), Number(match[6])];
  if (hour > 23 || minute > 59) throw new Error(`bad time in ${JSON.stringify(text)}`);
  const ms = Date.UTC(year, month - 1, day, hour, minute);
  const date = new Date(ms);
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) throw new Error(`bad date in ${JSON.stringify(text)}`);
  if (WEEKDAYS[date.getUTCDay()] !== weekday) throw new Error(`weekday does not match the date in ${JSON.stringify(text)}`);
  return ms;
}

export const turnIdFor = (sessionId, index) => `${sessionId}:${index}`;

/**
 * A question's gold, per the paper's protocol: the haystack sessions holding a turn marked has_answer (distinct,
 * in haystack order) and those turns' ids.
 */
export function goldOf(question) {
  const sessions = [];
  const turns = [];
  question.haystack_sessions.forEach((session, i) => {
    const sessionId = question.haystack_session_ids[i];
    const marked = session.flatMap((turn, index) => (turn.has_answer === true ? [turnIdFor(sessionId, index)] : []));
    if (marked.length === 0) return;
    if (!sessions.includes(sessionId)) sessions.push(sessionId);
    for (const id of marked) if (!turns.includes(id)) turns.push(id);
  });
  return { sessions, turns };
}

/**
 * The questions as the harness asks and scores them: { id, type, question, nowIso, goldSessions, goldTurns }.
 * Questions without gold are left out (`skipped`, their ids). `answerIdsDiffer` lists the questions whose
 * answer_session_ids are not exactly their gold sessions (the gold follows has_answer, not that field).
 */
export function buildLmeQuestions(raw) {
  const questions = [];
  const skipped = [];
  const answerIdsDiffer = [];
  for (const q of raw) {
    const gold = goldOf(q);
    if (gold.sessions.length === 0) {
      skipped.push(q.question_id);
      continue;
    }
    const listed = new Set(q.answer_session_ids ?? []);
    if (listed.size !== gold.sessions.length || gold.sessions.some((id) => !listed.has(id))) {
      answerIdsDiffer.push({ questionId: q.question_id, gold: gold.sessions, answerSessionIds: [...listed] });
    }
    questions.push({
      id: q.question_id,
      type: q.question_type,
      question: q.question,
      nowIso: new Date(parseLmeDate(q.question_date)).toISOString(),
      goldSessions: gold.sessions,
      goldTurns: gold.turns,
    });
  }
  return { questions, skipped, answerIdsDiffer };
}

/**
 * The distinct haystack sessions of some questions, each written once: the first occurrence wins.
 * Returns { sessions: Map(id → { sessionId, turns, startMs, questionId }), repeats, contentConflicts, dateVariants }:
 * repeats counts the later occurrences; contentConflicts lists those whose turns differ from the kept ones
 * ({ sessionId, questionId }); dateVariants the session ids met with another start date (the first date is kept).
 */
export function collectSessions(raw) {
  const sessions = new Map();
  const contents = new Map();
  const contentConflicts = [];
  const dateVariants = new Set();
  let repeats = 0;
  for (const q of raw) {
    q.haystack_sessions.forEach((turns, i) => {
      const sessionId = q.haystack_session_ids[i];
      const startMs = parseLmeDate(q.haystack_dates[i]);
      const kept = sessions.get(sessionId);
      if (!kept) {
        sessions.set(sessionId, { sessionId, turns, startMs, questionId: q.question_id });
        contents.set(sessionId, JSON.stringify(turns));
        return;
      }
      repeats += 1;
      if (contents.get(sessionId) !== JSON.stringify(turns)) contentConflicts.push({ sessionId, questionId: q.question_id });
      if (kept.startMs !== startMs) dateVariants.add(sessionId);
    });
  }
  return { sessions, repeats, contentConflicts, dateVariants: [...dateVariants] };
}

const safe = (value) => value.replace(/[^A-Za-z0-9]+/g, '_');

/** One haystack session → its JSONL records (see the top of this file). */
export function sessionRecords({ sessionId, turns, startMs }) {
  let parent = null;
  return turns.map((turn, index) => {
    const uuid = turnIdFor(sessionId, index);
    const base = {
      parentUuid: parent,
      isSidechain: false,
      cwd: LME_CWD,
      sessionId,
      uuid,
      timestamp: new Date(startMs + index * TURN_STEP_MS).toISOString(),
    };
    parent = uuid;
    const text = typeof turn.content === 'string' ? turn.content : '';
    if (turn.role === 'assistant') {
      return {
        ...base,
        type: 'assistant',
        requestId: `req_${safe(sessionId)}_${index}`,
        message: { id: `msg_${safe(sessionId)}_${index}`, type: 'message', role: 'assistant', model: 'longmemeval', content: [{ type: 'text', text }] },
      };
    }
    if (turn.role !== 'user') throw new Error(`session ${sessionId} turn ${index}: unknown role ${JSON.stringify(turn.role)}`);
    return { ...base, type: 'user', message: { role: 'user', content: text } };
  });
}

/** Write sessions (collectSessions' values) as <folder>/<session_id>.jsonl. Returns { files, turns }. */
export function writeSessions(folder, sessions) {
  mkdirSync(folder, { recursive: true });
  let files = 0;
  let turns = 0;
  for (const session of sessions) {
    writeFileSync(join(folder, `${session.sessionId}.jsonl`), `${sessionRecords(session).map((record) => JSON.stringify(record)).join('\n')}\n`);
    files += 1;
    turns += session.turns.length;
  }
  return { files, turns };
}

/** A session's turns as comparable text: roles and contents only (has_answer marks aside). */
function contentKey(turns) {
  return JSON.stringify(turns.map((turn) => [turn.role, turn.content]));
}

/**
 * Gold sessions that have a copy under another session id among `sessions` (a Map id → session): the same turns,
 * role for role and word for word, marks aside. Such a copy ranks like the gold session but is not gold.
 * Returns [{ sessionId, copies: [ids] }] in the order of goldIds.
 */
export function goldCopies(sessions, goldIds) {
  const byContent = new Map();
  for (const session of sessions.values()) {
    const key = contentKey(session.turns);
    if (!byContent.has(key)) byContent.set(key, []);
    byContent.get(key).push(session.sessionId);
  }
  const out = [];
  for (const id of new Set(goldIds)) {
    const session = sessions.get(id);
    if (!session) continue;
    const copies = byContent.get(contentKey(session.turns)).filter((other) => other !== id);
    if (copies.length > 0) out.push({ sessionId: id, copies });
  }
  return out;
}
