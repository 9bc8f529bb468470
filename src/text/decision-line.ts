/**
 * Whether a line of a session's `## Decisions & Outcomes` is a decision — something chosen — rather than a request,
 * a command and its output, an outcome, a question or a heading. That section holds all of these (seed 000); a
 * handover that labels a line "Decision:" must only do so for the first kind. Pure and conservative: a line is a
 * decision only when its own words say so (a choice, a rule, a stated decision), so a mislabel costs precision
 * rarely and a missed decision only costs a line.
 */
export interface DecisionVerdict {
  /** The line without a leading label ("Decision: ", "Fix: ") and its time stamp. */
  text: string;
  /** How strongly the words mark a choice; a decision at DECISION_THRESHOLD or more. */
  score: number;
  decision: boolean;
}

export const DECISION_THRESHOLD = 2;

const STAMP = /^\[[^\]]{1,40}\]\s*/;
const LABEL = /^(decision|decided|we decided|choice|fix|solution|approach|plan)\s*:\s*/i;
/** A command and what it printed (`` `npm test` → exit 0 ``), as the projection writes tool activity. */
const COMMAND = /^`[^`]+`\s*(?:→|->)/;
/** Reports, tallies and headings that carry no choice. */
const REPORT = /^(?:result|results|recap|summary|status|test results|root cause[^:]*|part \d+|step \d+|round \d+[^:]*)\s*:|^[✅❌✓✗|#>*]|^spawned agent\b/i;
/** What was done: an outcome, not a choice. */
const OUTCOME = /^(?:i\s+)?(?:successfully\s+)?(?:fixed|added|removed|recorded|deployed|updated|created|implemented|merged|wrote|ran|installed|upgraded|reverted|renamed|moved|deleted|finished|completed|shipped|debugged|resolved)\b/i;
/** Asking for work: a user's request or an instruction, unless it names a choice. */
const REQUEST = /^(?:(?:let'?s|lets|let us)\s+(?!use\b|go with\b|switch\b|keep\b|stick\b|adopt\b|move to\b|stay\b)|(?:can|could|would|will) you\b|please\b|(?:continue|write|give me|help|look|check|show|tell|investigate|make sure|go ahead|just)\b)/i;
const LETS_CHOOSE = /^(?:let'?s|lets|let us)\s+(?:use|go with|switch|keep|stick|adopt|move to|stay)\b/i;
const INSTEAD = /\b(?:instead of|rather than)\b(?!\s+(?:the\s+)?(?:expected\s+)?\d)/i;
const CHOICE = /\b(?:use|using|leverage|switch to|go with|going with|stick with|keep|adopt|choose|chose|chosen|prefer|opt for|opted for|settled on)\b/i;
const RULE = /\b(?:must|must not|never|always|should not|shouldn't|do not|don't)\b/i;
const STATED = /\b(?:decision|decided|we(?:'ll| will) (?:use|go with|keep))\b/i;
const SOLUTION = /^(?:the\s+)?(?:fix|solution|approach|plan)\s+is\b/i;
const WE_DECIDED = /^(?:we|i)\s+(?:decided|agreed|chose|settled on|opted)\b/i;

export function classifyDecisionLine(line: string): DecisionVerdict {
  let text = line.trim().replace(STAMP, '');
  let score = 0;
  let labelled = false;
  // A label the writer put there ("Decision: Decision: …" once doubled): taken off, and counted once.
  for (let match = LABEL.exec(text); match !== null; match = LABEL.exec(text)) {
    if (!labelled) score += 2 + (/^decision|^decided|^we decided|^choice/i.test(match[1]!) ? 1 : 0);
    labelled = true;
    text = text.slice(match[0].length);
  }
  const verdict = (value: number): DecisionVerdict => ({ text, score: value, decision: value >= DECISION_THRESHOLD });
  if (text === '' || text.endsWith('?') || COMMAND.test(text) || REPORT.test(text)) return verdict(0);
  if (!labelled && (OUTCOME.test(text) || REQUEST.test(text))) return verdict(0);
  const words = text.split(/\s+/).length;
  if (!labelled && words < 4 && !INSTEAD.test(text)) return verdict(0);
  if (LETS_CHOOSE.test(text) || WE_DECIDED.test(text)) score += 3;
  if (INSTEAD.test(text)) score += 2;
  if (CHOICE.test(text)) score += 1;
  if (RULE.test(text)) score += 1;
  if (SOLUTION.test(text)) score += 1;
  if (STATED.test(text) && words >= 8) score += 2;
  return verdict(score);
}
