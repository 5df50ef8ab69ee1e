// Helpers for the paired-likelihood table: token spans with heat shades and
// small pure functions (unit-tested with node's test runner). The shade of a
// token is computed in Python; here it only becomes a colour.
import { h } from "./dom.js";
import { heatColor } from "./palette.js";

export { heatColor };

/** Display names of the sentence scores (Python: models/language_models/scoring.py MASKED_METRICS). */
export const METRIC_NAMES = { cps: "CPS", pll: "PLL", "pll-word-l2r": "PLL-word-l2r", aul: "AUL", aula: "AULA" };

/** A metric's display name; one not listed is upper-cased. */
export function metricName(metric) {
  return METRIC_NAMES[metric] || String(metric ?? "").toUpperCase();
}

/** A copy of `pairs` with pair `index` replaced by `record` (trimmed; a blank sense key is left out). */
export function replacePair(pairs, index, record) {
  const clean = {
    stereo: String(record.stereo ?? "").trim(),
    anti: String(record.anti ?? "").trim(),
    bias_type: String(record.bias_type ?? "").trim(),
  };
  const senseKey = String(record.sense_key ?? "").trim();
  if (senseKey) clean.sense_key = senseKey;
  return pairs.map((p, i) => (i === index ? clean : p));
}

/** Display order with a group heading before the first row of each group (`groupOf(row)` names it). */
export function withGroupHeadings(order, rows, groupOf) {
  const out = [];
  let last = null;
  for (const i of order) {
    if (i >= rows.length) continue;
    const name = groupOf(rows[i]);
    if (name !== last) out.push({ heading: name });
    last = name;
    out.push({ index: i });
  }
  return out;
}

/** Tooltip for one token. */
export function tokenTitle(token) {
  const parts = [`token: ${token.token}`];
  if (token.log_prob !== null && token.log_prob !== undefined) parts.push(`log P = ${token.log_prob.toFixed(3)}`);
  if (token.attention !== null && token.attention !== undefined) parts.push(`attention ${token.attention.toFixed(4)}`);
  if (token.modified) parts.push("differs from the other sentence");
  if (!token.counted) parts.push("not counted in the score");
  return parts.join("; ");
}

/** The sentence as token spans (text only, never HTML), special tokens left out. */
export function sentenceWithTokens(side, role) {
  const wrap = h("span", { className: "plt-tokens", dataset: { role } });
  if (!side.tokens || side.tokens.length === 0) {
    wrap.textContent = side.text;
    return wrap;
  }
  let first = true;
  for (const token of side.tokens) {
    if (token.special) continue;
    if (token.space && !first) wrap.append(document.createTextNode(" "));
    first = false;
    const span = h("span", {
      className: "plt-token",
      text: token.piece,
      title: tokenTitle(token),
      dataset: { logProb: token.log_prob === null ? "" : String(token.log_prob) },
    });
    if (token.modified) span.classList.add("plt-modified");
    if (!token.counted) span.classList.add("plt-uncounted");
    if (token.shade !== null && token.shade !== undefined) span.style.background = heatColor(token.shade);
    wrap.append(span);
  }
  return wrap;
}

/** A signed score difference: 3 decimals, or 3 significant digits when it is smaller than 0.01. */
export function formatDifference(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "";
  const v = Number(value);
  if (v === 0) return "0";
  const text = Math.abs(v) >= 0.01 ? Math.abs(v).toFixed(3) : Math.abs(v).toPrecision(3);
  return `${v > 0 ? "+" : "-"}${text}`;
}
