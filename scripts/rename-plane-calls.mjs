#!/usr/bin/env node
// Rewrites calls on the Moon facade to the plane that owns them: `moon.recall(…)` → `moon.history.recall(…)`,
// `context.moon().memory()` → `context.moon().memory.longTerm()`. Receivers are found by type (the TypeScript
// checker over tsconfig.json), so `home.moon.timeline`, `context.moon().fixes` and a local named anything are all
// caught, while `engine.forget.forget` or `tx.getSession` are not. Safe to run again (after other branches merge):
// an access already on a plane has a plane as its receiver, not Moon, and `moon.memory.…` is left as it is.
//
//   node scripts/rename-plane-calls.mjs            rewrite src/interfaces/, test/, and the library benches
//   node scripts/rename-plane-calls.mjs --check    list what would change; exit 1 if anything would
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Each former Moon method, and where it lives now (a dotted path below Moon). */
export const PLANE_OF = new Map([
  ...['index', 'snapshot', 'recall', 'sessions', 'show', 'timeline', 'getEntries', 'getSession', 'resolveScope', 'markers', 'markerTypes', 'captureTranscript'].map(
    (name) => [name, `history.${name}`],
  ),
  ...['digestSession', 'searchDigests', 'listDigests', 'fixes', 'decisions', 'contextPack', 'planning', 'indexDocs', 'rlmIndex', 'rlmQuery'].map((name) => [
    name,
    `memory.${name}`,
  ]),
  ['memory', 'memory.longTerm'],
  ...['hook', 'hookUsage', 'recordHookFailure', 'install', 'doctor', 'makeSafe', 'safeText'].map((name) => [name, `agents.${name}`]),
  ...['status', 'verify', 'rebuild', 'forget', 'gc', 'migrate', 'watcher', 'checkBoundary', 'usage', 'continuity', 'service'].map((name) => [name, `upkeep.${name}`]),
]);

/** TypeScript files rewritten by type: the doors and the tests. The composition root and the planes are left alone. */
const TYPED_ROOTS = ['src/interfaces/', 'test/'];
/** Benchmarks load a built dist/ without types: `<name>.recall(` where the name holds a Moon (`moon`, `build.moon`). */
const UNTYPED = ['bench/compare-builds.mjs', 'bench/exact-top-k.mjs', 'bench/hostile-shapes.mjs', 'bench/ingest-recall.mjs', 'bench/pack.mjs', 'bench/pg-builds.mjs', 'bench/rg-tsv.mjs', 'bench/recall-eval/lab.mjs', 'bench/recall-eval/run.mjs'];

/** A Moon, or a Moon that may be null or undefined (`moon?.recall`). */
function isMoonType(type) {
  const types = type.isUnion() ? type.types : [type];
  return types.some((one) => one.aliasSymbol?.getName() === 'Moon' || one.getSymbol()?.getName() === 'Moon');
}

/** `moon.memory` is the memory plane itself; only `moon.memory()` (the long-term API) moves. */
function isFormerCall(node) {
  if (node.name.text !== 'memory') return true;
  return ts.isCallExpression(node.parent) && node.parent.expression === node;
}

/** Edits for one typed file: [position after the receiver, text to insert], and the renamed `memory` calls. */
function editsFor(checker, source) {
  const edits = [];
  const visit = (node) => {
    if (ts.isPropertyAccessExpression(node) && PLANE_OF.has(node.name.text) && isFormerCall(node) && isMoonType(checker.getTypeAtLocation(node.expression))) {
      edits.push({ start: node.name.getStart(source), end: node.name.getEnd(), text: PLANE_OF.get(node.name.text) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edits;
}

function applyEdits(text, edits) {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

function rewriteTyped() {
  const configPath = join(REPO, 'tsconfig.json');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, REPO);
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const changed = [];
  for (const source of program.getSourceFiles()) {
    const path = relative(REPO, source.fileName);
    if (!TYPED_ROOTS.some((root) => path.startsWith(root))) continue;
    const edits = editsFor(checker, source);
    if (edits.length > 0) changed.push({ path, text: applyEdits(source.getFullText(), edits), count: edits.length });
  }
  return changed;
}

function rewriteUntyped() {
  const methods = [...PLANE_OF.keys()].join('|');
  // A receiver that is a Moon by name: `moon`, `x.moon`, `builds[i].moon`, `libraries[name]` in the build comparisons.
  const call = new RegExp(`(?<![\\w.\\]])((?:[\\w$]+(?:\\[[\\w$]+\\])?\\.)*moon|libraries\\[name\\])\\.(${methods})\\(`, 'g');
  const changed = [];
  for (const path of UNTYPED) {
    let text;
    try {
      text = readFileSync(join(REPO, path), 'utf8');
    } catch {
      continue;
    }
    let count = 0;
    // The build comparisons load older builds too: call the plane when the build has one, else the old method.
    const tolerant = /compare-builds|exact-top-k|pg-builds/.test(path);
    const out = text.replace(call, (_all, receiver, method) => {
      count += 1;
      const [plane, name] = PLANE_OF.get(method).split('.');
      return tolerant ? `(${receiver}.${plane} ?? ${receiver}).${method}(` : `${receiver}.${plane}.${name}(`;
    });
    if (count > 0) changed.push({ path, text: out, count });
  }
  return changed;
}

const check = process.argv.includes('--check');
const changed = [...rewriteTyped(), ...rewriteUntyped()];
for (const { path, text, count } of changed) {
  process.stderr.write(`${check ? 'would rewrite' : 'rewrote'} ${path}: ${count}\n`);
  if (!check) writeFileSync(join(REPO, path), text);
}
if (check && changed.length > 0) process.exitCode = 1;
