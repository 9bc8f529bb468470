import { looksRandom, marker } from './common.js';
import { TOKEN_RULES, type TokenRule } from './token-rules.js';

/**
 * Provider tokens recognisable by their shape. Running ~100 rules over every message would cost ~100 passes, so
 * one pass of a combined regex over the rules' literal prefixes ("gates") first finds which rules can match at
 * all; only those run. Ordinary prose hits no gate, or one or two short ones (`SK`, `AC`).
 */

const GATED = new Map<string, number[]>();
const UNGATED: number[] = [];
TOKEN_RULES.forEach((rule, index) => {
  if (rule.gates.length === 0) UNGATED.push(index);
  for (const gate of rule.gates) GATED.set(gate, [...(GATED.get(gate) ?? []), index]);
});
// The gate scan reports the longest gate at a position (`sk-ant-`, not `sk-`), so a gate also selects the rules of
// every shorter gate inside it. Worked out per gate when first seen: most text hits no gate, and doing it for every
// pair up front cost each short-lived process (a hook) ~17 ms.
const EXPANDED = new Map<string, number[]>();

function rulesOfGate(gate: string): number[] {
  let rules = EXPANDED.get(gate);
  if (rules === undefined) {
    rules = [...(GATED.get(gate) ?? [])];
    for (const [other, otherRules] of GATED) {
      if (other !== gate && gate.includes(other)) for (const rule of otherRules) if (!rules.includes(rule)) rules.push(rule);
    }
    EXPANDED.set(gate, rules);
  }
  return rules;
}
const GATE = new RegExp(
  [...GATED.keys()]
    .sort((a, b) => b.length - a.length)
    .map((gate) => gate.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|'),
  'g',
);

export function redactTokens(text: string): string {
  let selected: number[] = UNGATED;
  GATE.lastIndex = 0;
  for (let hit = GATE.exec(text); hit; hit = GATE.exec(text)) {
    if (selected === UNGATED) selected = [...UNGATED];
    for (const index of rulesOfGate(hit[0])) if (!selected.includes(index)) selected.push(index);
  }
  // Rules run in list order whatever order their gates appeared in: the more specific rule wins.
  if (selected !== UNGATED) selected.sort((a, b) => a - b);
  let out = text;
  for (const index of selected) {
    const rule = TOKEN_RULES[index];
    if (rule) out = out.replace(rule.pattern, (match) => applyRule(rule, match));
  }
  return out;
}

function applyRule(rule: TokenRule, match: string): string {
  if (match.includes('[REDACTED')) return match;
  if (rule.random && !looksRandom(match)) return match;
  return marker(rule.kind);
}
