// How far to trust d, drawn (issue 28): the interval's whiskers on the effect-size axis, the stability
// verdict with its rule, and the word-influence view (d with each word left out; the words that move d
// most marked; click a word for d without it). Every number comes from Python (the result's
// interval_record(), stability() and influence()); this module only maps them to pixels and text.
import { h, s, signed } from "./dom.js";
import { formatInterval, formatValue } from "./format.js";
import { fitWords } from "./labels.js";
import { fitKey } from "./wrap.js";
import { labelledTicks, linear, niceDomain, signedBar, tickLabel } from "./scale.js";

const ROLE = { targ1: "Target X", targ2: "Target Y", attr1: "Attribute A", attr2: "Attribute B" };
const ROW = 18;
const SHOWN = 8; // rows shown before "show all"

/** Whiskers from x(low) to x(high) at height y, kept inside [left, right] (an end beyond the axis is cut there
 * and marked open: no cap). Returns the nodes appended, or [] without an interval. */
export function drawWhisker(svg, x, interval, { y, left, right, cap = 6 }) {
  if (!interval || interval.low === undefined || interval.low === null) return [];
  const lo = Math.max(left, Math.min(right, x(interval.low)));
  const hi = Math.max(left, Math.min(right, x(interval.high)));
  const nodes = [
    s("line", { x1: lo.toFixed(2), x2: hi.toFixed(2), y1: y, y2: y, class: "esb-whisker",
      "data-low": String(interval.low), "data-high": String(interval.high) }),
  ];
  const open = { low: x(interval.low) <= left + 0.01 && interval.low < -2, high: x(interval.high) >= right - 0.01 && interval.high > 2 };
  if (!open.low) nodes.push(s("line", { x1: lo.toFixed(2), x2: lo.toFixed(2), y1: y - cap, y2: y + cap, class: "esb-whisker esb-whisker-cap" }));
  if (!open.high) nodes.push(s("line", { x1: hi.toFixed(2), x2: hi.toFixed(2), y1: y - cap, y2: y + cap, class: "esb-whisker esb-whisker-cap" }));
  svg.append(...nodes);
  return nodes;
}

/** "95% CI [1.50, 1.85]" (the shared number formatter, lib/format.js) or "" without an interval. */
export function intervalText(interval) {
  if (!interval || interval.low === undefined || interval.low === null) return "";
  return `${Math.round(100 * interval.level)}% CI ${formatInterval(interval, "effect")}`;
}

/** The verdict beside d and the line that states why (its reason: the one sentence when p and the interval
 * disagree), the subsets' shares and the rule (empty nodes without one). */
export function verdictNodes(stability) {
  if (!stability || !stability.verdict) return { badge: null, line: "" };
  const pct = (v) => `${Math.round(100 * Number(v))}%`;
  const badge = h("span", { className: `esb-verdict esb-${stability.verdict}`, text: stability.verdict, title: stability.rule || "" });
  const why = stability.reason ? `: ${stability.reason}` : "";
  const line = `Stability: ${stability.verdict}${why}. Over ${stability.k} subsets keeping ${pct(stability.keep)} of each set's words, `
    + `${pct(stability.share_same_sign)} keep d's sign and ${pct(stability.share_significant)} stay significant. Rule: ${stability.rule}.`
    + (stability.share_significant_note ? ` Here ${stability.share_significant_note}.` : "");
  return { badge, line };
}

/**
 * The word-influence view: one row per word of the four sets, sorted by how far leaving it out moves d (a
 * bar of the change on its own axis, d without it as a number), the movers marked; click (or Enter on) a row
 * for d without that word. `onSelect(record | null)` is told the selected word (e.g. to mark it on d's axis).
 */
export function influenceView({ onSelect }) {
  const svg = s("svg", { width: 400, height: 10, class: "esb-infl", role: "img" });
  const detail = h("div", { className: "esb-infl-detail", attrs: { "aria-live": "polite" } });
  const more = h("button", { className: "embias-button esb-infl-more", attrs: { type: "button" } });
  const heading = h("div", { className: "esb-infl-heading" });
  // the axis title as wrapping text under the chart (an SVG title would run out of a 244 px widget)
  const axis = h("div", { className: "esb-infl-axis", text: "bar: how far d moves without the word; number: d without it" });
  const node = h("div", { className: "esb-influence" }, heading, svg, axis, more, detail);
  let selected = null; // "set\u0000word"
  let all = false;
  let last = null;
  more.addEventListener("click", () => {
    all = !all;
    if (last) update(...last);
  });

  function describe(r, d, alpha) {
    const role = `${ROLE[r.set] || r.set}${r.category ? `: ${r.category}` : ""}`;
    if (r.effect_size_without === null || r.effect_size_without === undefined) return `Without ${r.word} (${role}): d is undefined.`;
    const p = formatValue(r.p_value_without, "p", alpha);  // never rounded across the α its verdict uses
    return `Without ${r.word} (${role}): d = ${formatValue(r.effect_size_without, "effect")} (${signed(r.effect_size_change, 3)} from ${formatValue(d, "effect")}), `
      + `p ${p.startsWith("<") ? p : `= ${p}`}; sign ${r.flips_sign ? "FLIPS" : "kept"}; significance at α = ${alpha} ${r.flips_significance ? "FLIPS" : "kept"}.`;
  }

  function update(records, d, alpha, width) {
    last = [records, d, alpha, width];
    const rows = [...records].sort((a, b) => Math.abs(b.effect_size_change ?? 0) - Math.abs(a.effect_size_change ?? 0));
    node.hidden = rows.length === 0;
    const key = (r) => `${r.set}\u0000${r.word}`;
    if (selected && !rows.some((r) => key(r) === selected)) selected = null;
    const shown = all ? rows : rows.slice(0, SHOWN);
    if (selected && !shown.some((r) => key(r) === selected)) shown.push(rows.find((r) => key(r) === selected));
    const movers = rows.filter((r) => r.mover).length;
    heading.textContent = `Word influence: d with each word left out (${rows.length} words; the ${movers} marked ● move d most or flip it; `
      + "bar colour: the word's set). Click a word.";
    more.textContent = all ? "show the top 8" : `show all ${rows.length} words`;
    more.hidden = rows.length <= SHOWN;
    const labelW = Math.min(130, Math.round(width * 0.3));
    const valueW = 64;
    const fit = niceDomain(shown.map((r) => r.effect_size_change ?? 0), { nTicks: 5 });
    const x = linear(fit.domain, [labelW + 10, width - valueW - 6]);
    const axisY = 4 + shown.length * ROW + 4;
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(axisY + 16));
    svg.replaceChildren();
    const labelled = new Set(labelledTicks(fit.ticks, x)); // a narrow plot labels fewer ticks, never overlapping
    for (const t of fit.ticks) {
      svg.append(s("line", { x1: x(t), x2: x(t), y1: 4, y2: axisY, class: t === 0 ? "esb-zero" : "esb-gridline" }));
      if (labelled.has(t)) svg.append(s("text", { x: x(t), y: axisY + 12, "text-anchor": "middle", class: "esb-tick" }, tickLabel(t)));
    }
    shown.forEach((r, i) => {
      const y = 4 + i * ROW;
      const on = key(r) === selected;
      const g = s("g", { class: `esb-infl-row${r.mover ? " esb-mover" : ""}${on ? " esb-selected" : ""}`, tabindex: "0", role: "button",
        "data-word": r.word, "data-set": r.set, "data-mover": String(Boolean(r.mover)), "aria-pressed": String(on),
        "aria-label": `${r.word}: d without it ${r.effect_size_without === null ? "undefined" : signed(r.effect_size_without, 3)}` });
      g.append(s("title", {}, `${r.word} (${ROLE[r.set] || r.set}${r.category ? `: ${r.category}` : ""}): click for d without it`));
      g.append(s("rect", { x: 0, y, width, height: ROW, class: "esb-infl-hit" }));
      const bar = signedBar(x, r.effect_size_change ?? 0);
      g.append(s("rect", { x: bar.x.toFixed(2), y: y + 4, width: Math.max(0.5, bar.width).toFixed(2), height: ROW - 8, class: `esb-inflbar esb-${r.set}` }));
      // a long word or sense key cut to the label column (at a key boundary), whole in the row's tooltip
      const room = labelW - 6 - (r.mover ? 12 : 0);
      g.append(s("text", { x: labelW, y: y + 13, "text-anchor": "end", class: "esb-word" },
        `${r.mover ? "● " : ""}${fitKey(fitWords(r.word, room), room)}`));
      const without = r.effect_size_without === null || r.effect_size_without === undefined ? "undef." : formatValue(r.effect_size_without, "effect");
      g.append(s("text", { x: width - 2, y: y + 13, "text-anchor": "end", class: "esb-num" }, without));
      const pick = () => {
        selected = on ? null : key(r);
        update(...last);
      };
      g.addEventListener("click", pick);
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          pick();
        }
      });
      svg.append(g);
    });
    const chosen = rows.find((r) => key(r) === selected) || null;
    detail.textContent = chosen ? describe(chosen, d, alpha) : "";
    detail.hidden = !chosen;
    onSelect(chosen);
  }

  return {
    node,
    update,
    select(set, word) {
      selected = `${set}\u0000${word}`;
      if (last) update(...last);
    },
  };
}
