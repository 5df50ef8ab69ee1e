// The paired-likelihood table's summary: the bias score bar with its unbiased reference line, one small bar
// per group, and the shade legend. Every number comes from Python (the `summary` trait); here it is drawn.
import { h, s } from "./dom.js";
import { formatInterval, formatStat, formatValue } from "./format.js";
import { heatColor, metricName } from "./likelihood.js";
import { linear } from "./scale.js";

/** The summary bar's widest drawing (px); narrower widgets draw it at their own width (`drawSummary`'s `width`). */
export const BAR_WIDTH = 420;
const GROUP_BAR = 160;

/** The bar from the reference to `score` (none when there is no score), coloured by its side. */
function scoreBar(x, ref, score, { y, height }) {
  const a = x(Math.min(ref, score));
  const b = x(Math.max(ref, score));
  return s("rect", {
    x: a.toFixed(2),
    y,
    width: Math.max(1, b - a).toFixed(2),
    height,
    class: score > ref ? "plt-bar plt-bar-stereo" : "plt-bar plt-bar-anti",
  });
}

/**
 * The headline: a track, five ticks (ends, reference, halfway points), the score bar and the reference, drawn
 * `width` px wide (the widget's width from `watchWidth`, at most BAR_WIDTH): the end ticks stay inside.
 */
export function drawSummary(svg, text, summary, width = BAR_WIDTH) {
  const w = Math.max(120, Math.min(BAR_WIDTH, Math.round(width)));
  const [lo, hi] = summary.axis || [0, 100];
  const x = linear([lo, hi], [12, w - 12]);
  const ref = summary.reference ?? 50;
  const decided = summary.n_ties ? summary.percent_of_decided_interval : null; // drawn only where ties make it differ
  const height = decided ? 56 : 46;
  svg.setAttribute("width", String(w));
  svg.setAttribute("height", String(height));
  svg.setAttribute("viewBox", `0 0 ${w} ${height}`);
  svg.replaceChildren(s("rect", { x: 12, y: 8, width: w - 24, height: 18, class: "plt-track" }));
  const tickY = decided ? 50 : 40;
  for (const tick of [lo, (lo + ref) / 2, ref, (ref + hi) / 2, hi]) {
    svg.append(s("text", { x: x(tick), y: tickY, "text-anchor": "middle", class: "plt-tick" }, String(tick)));
  }
  const score = summary.score;
  const scored = score !== null && score !== undefined;
  if (scored) svg.append(scoreBar(x, ref, score, { y: 10, height: 14 }));
  const iv = scored ? summary.score_interval : null;
  if (iv) svg.append(whisker(x, iv, 17, 8, "plt-whisker"));
  if (scored && decided) svg.append(decidedMark(x, summary.percent_of_decided - 50 + ref, decided, ref));
  svg.append(
    s("line", { x1: x(ref), x2: x(ref), y1: 2, y2: decided ? 42 : 32, class: "plt-reference", "data-reference": String(ref) }),
  );
  const who = summary.group || "all pairs";
  const ties = summary.n_ties
    ? ` (${summary.n_ties} tie${summary.n_ties === 1 ? "" : "s"} counted in N, never as stereotypical, so ${ref} is "no bias" only without ties)`
    : "";
  text.textContent = !scored
    ? `${who}: no scored pairs`
    : `${metricName(summary.metric)} bias score (${who}): ${formatValue(score, "percent")} ` +
      `${intervalText(iv)}; ${decidedText(summary)}  ` +
      `[${summary.n_stereo_preferred} of ${summary.n} pair${summary.n === 1 ? " prefers" : "s prefer"} the more stereotypical sentence` +
      `${ties}; ${summary.convention} convention]` + stereosetText(summary.stereoset);
  text.title = iv ? `${iv.method}. p: ${summary.p_value_method || ""}` : "";
}

/** The decided share (ties left out; its Wilson whisker), a dot on the second row, in the score's convention. */
function decidedMark(x, value, iv, ref) {
  const shift = ref - 50; // the decided share is a plain percentage; the axis may be Zhou's (score - 50)
  const g = s("g", { class: "plt-decided", "data-value": String(value) });
  g.append(whisker(x, { low: iv.low + shift, high: iv.high + shift }, 36, 6, "plt-whisker"),
    s("circle", { cx: x(value).toFixed(2), cy: 36, r: 3, class: "plt-decided-dot" }));
  return g;
}

/** "decided pairs 61.2% [57.0, 65.3], sign test p = 0.001" (or that every pair is a tie). */
function decidedText(summary) {
  const iv = summary.percent_of_decided_interval;
  if (!iv || summary.percent_of_decided === null || summary.percent_of_decided === undefined) {
    return "every pair a tie: no decided pair to test";
  }
  return `decided pairs ${formatValue(summary.percent_of_decided, "percent")}% prefer the more stereotypical sentence ` +
    `${formatInterval(iv, "percent")} (50 = no preference), sign test ${formatStat("p", summary.p_value, "p")}`;
}

/** An interval's whisker: a line from low to high with end caps, centred on `y` (`cap` px tall). */
function whisker(x, iv, y, cap, cls) {
  const a = x(iv.low).toFixed(2);
  const b = x(iv.high).toFixed(2);
  const g = s("g", { class: cls, "data-low": String(iv.low), "data-high": String(iv.high) });
  g.append(
    s("line", { x1: a, x2: b, y1: y, y2: y }),
    s("line", { x1: a, x2: a, y1: y - cap / 2, y2: y + cap / 2 }),
    s("line", { x1: b, x2: b, y1: y - cap / 2, y2: y + cap / 2 }),
  );
  return g;
}

/** "(95% Wilson interval [low, high])" of the published score (or nothing without an interval). */
function intervalText(iv) {
  if (!iv) return "";
  return `(${Math.round(iv.level * 100)}% Wilson interval ${formatInterval(iv, "percent")})`;
}

/** StereoSet's SS, LMS and ICAT with their target bootstrap intervals, when the pairs have unrelated options. */
function stereosetText(st) {
  if (!st) return "";
  const part = (k) => `${k.toUpperCase()} ${formatValue(st[k], "percent")} ${formatInterval(st[`${k}_interval`], "percent")}`;
  return `; StereoSet ${["ss", "lms", "icat"].map(part).join(", ")} (target bootstrap)`;
}

function groupBar(x, ref, score, iv) {
  const svg = s("svg", { width: GROUP_BAR, height: 14, class: "plt-group-bar" });
  svg.append(
    s("rect", { x: 2, y: 2, width: GROUP_BAR - 4, height: 10, class: "plt-track" }),
    scoreBar(x, ref, score, { y: 3, height: 8 }),
    ...(iv ? [whisker(x, iv, 7, 6, "plt-whisker")] : []),
    s("line", { x1: x(ref), x2: x(ref), y1: 0, y2: 14, class: "plt-reference" }),
  );
  return svg;
}

function groupText(g) {
  const means =
    g.mean_stereo === null || g.mean_stereo === undefined
      ? ""
      : `; mean sentence score stereo ${formatValue(g.mean_stereo, "number")} (${g.n_stereo_sentences}) ` +
        `vs anti ${formatValue(g.mean_anti, "number")} (${g.n_anti_sentences})`;
  const iv = g.score_interval ? ` ${formatInterval(g.score_interval, "percent")}` : "";
  const decided = g.percent_of_decided === null || g.percent_of_decided === undefined
    ? "; every pair a tie"
    : `; decided ${formatValue(g.percent_of_decided, "percent")}% ${formatInterval(g.percent_of_decided_interval, "percent")}, ` +
      `sign test ${formatStat("p", g.p_value, "p")}`;
  const ties = g.n_ties ? `, ${g.n_ties} tie${g.n_ties === 1 ? "" : "s"}` : "";
  return `${formatValue(g.score, "percent")}${iv}${decided} (${g.n_stereo_preferred}/${g.n} pair${g.n === 1 ? "" : "s"}${ties})${means}`;
}

function groupLine(g, x, ref, bySense) {
  // the name (a sense key when grouped by sense) and its bar stay together on one line; the numbers may wrap
  return h(
    "div",
    { className: "plt-group", dataset: { group: g.name, score: String(g.score) } },
    h(
      "span",
      { className: "plt-group-head" },
      h("span", { className: bySense ? "plt-group-name plt-sense-key" : "plt-group-name", text: g.name, title: g.name }),
      groupBar(x, ref, g.score, g.score_interval),
    ),
    h("span", { className: "plt-group-score", text: groupText(g) }),
    g.gloss ? h("span", { className: "plt-group-gloss", text: g.gloss }) : null,
    g.problem ? h("span", { className: "plt-group-problem", text: g.problem }) : null,
    g.sense_keys && g.sense_keys.length ? h("span", { className: "plt-group-gloss", text: g.sense_keys.join(", ") }) : null,
  );
}

/** One line per group: name, gloss, a small bar from the reference, the score and counts (all from Python). */
export function drawGroups(box, summary) {
  const groups = summary.groups || [];
  box.hidden = groups.length === 0;
  const [lo, hi] = summary.axis || [0, 100];
  const ref = summary.reference ?? 50;
  const x = linear([lo, hi], [2, GROUP_BAR - 2]);
  const bySense = summary.group_by === "sense_key";
  box.replaceChildren(
    h("div", { className: "plt-groups-title", text: summary.group_by ? `bias score by ${summary.group_by_label}` : "bias score by group" }),
    ...groups.map((g) => groupLine(g, x, ref, bySense)),
  );
}

/** What the shades mean: log P = 0 to the summary's darkest shade. */
export function drawLegend(legend, summary) {
  legend.replaceChildren(
    h("span", { className: "plt-swatch", attrs: { style: `background:${heatColor(0)}` } }),
    h("span", { text: " log P = 0 " }),
    h("span", { className: "plt-swatch", attrs: { style: `background:${heatColor(1)}` } }),
    h("span", {
      text: ` log P = −${Number(summary.shade_scale || 0).toFixed(1)}; underlined: the words that differ; `,
    }),
    h("span", { text: "grey: not counted in the score; ⚠: not a minimal edit" }),
  );
}
