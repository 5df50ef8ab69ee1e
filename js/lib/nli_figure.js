// The NLI explorer's exported figure (lib/export.js svgMarkup lays it out): the heatmap of mean P(label) per
// (premise word, hypothesis word) and the clicked cell's sentence pairs with their e/n/c bars, drawn as SVG
// from the synced traits only (heatmap, cell, cell_pairs, scores, progress): no number is computed here
// besides the colour scale's geometry (lib/heat.js). Dev, Li, Phillips & Srikumar (2020).
//
//   heatmapSvg(heatmap, cell)    -> <svg class="nle-fig-heat"> (the picked cell outlined)
//   cellSvg(cell, cellPairs)     -> <svg class="nle-fig-cell"> or null when no cell is picked
//   nliFigureSpec(model)         -> {title, subtitle, lines, legend} for exportButtons({figure})
import { s } from "./dom.js";
import { formatInterval, formatValue } from "./format.js";
import { figureFrame } from "./figure_frame.js";
import { heatScale } from "./heat.js";
import { PALETTE, heatColor } from "./palette.js";

export const LABEL_COLOURS = { entailment: PALETTE.categorical[2], neutral: PALETTE.categorical[0], contradiction: PALETTE.categorical[7] };
const LABELS = ["entailment", "neutral", "contradiction"];
const CHAR_W = 6.6; // an 11 px sans-serif character, for laying out labels before they are measured
const CELL_W = 40;
const CELL_H = 20;
const MAX_PAIRS = 12;

const fmt = (v, d = 3) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));
const text = (attrs, content) => s("text", { class: "embias-fig-legend", ...attrs }, content);

/** The heatmap as SVG: rotated column labels, row labels, each cell shaded on the fitted scale with its value. */
export function heatmapSvg(hm, picked = []) {
  const rows = hm.premise_words || [];
  const cols = hm.hypothesis_words || [];
  const scale = heatScale((hm.values || []).flat(), hm.label);
  const left = 8 + CHAR_W * Math.max(8, ...rows.map((w) => String(w).length));
  const top = 8 + 0.72 * CHAR_W * Math.max(6, ...cols.map((w) => String(w).length));
  const svg = s("svg", { class: "nle-fig-heat", width: Math.ceil(left + cols.length * CELL_W + 12), height: Math.ceil(top + rows.length * CELL_H + 8) });
  cols.forEach((w, j) => {
    const x = left + j * CELL_W + CELL_W / 2;
    svg.append(text({ x, y: top - 4, transform: `rotate(-45 ${x} ${top - 4})` }, w));
  });
  rows.forEach((p, i) => {
    const y = top + i * CELL_H;
    svg.append(text({ x: left - 6, y: y + 14, "text-anchor": "end" }, p));
    cols.forEach((w, j) => {
      const v = hm.values[i][j];
      const x = left + j * CELL_W;
      const cell = s("rect", { class: "nle-fig-cell-rect", x, y, width: CELL_W, height: CELL_H, fill: v === null ? "none" : heatColor(scale.shade(v)) });
      const isPicked = picked.length === 2 && picked[0] === p && picked[1] === w; // the cell whose pairs are drawn
      cell.setAttribute("style", isPicked ? "stroke: var(--embias-fg); stroke-width: 2" : "stroke: var(--embias-grid); stroke-width: 1");
      cell.dataset.premise = p;
      cell.dataset.hypothesis = w;
      svg.append(cell, text({ x: x + CELL_W / 2, y: y + 14, "text-anchor": "middle" }, v === null ? "" : fmt(v, 2)));
    });
  });
  return svg;
}

/** The picked cell's sentence pairs, each with three bars (e, n, c) and their values; null with no cell picked. */
export function cellSvg(cell, pairs) {
  if (!cell || cell.length !== 2) return null;
  const shown = (pairs || []).slice(0, MAX_PAIRS);
  const barX = 8 + CHAR_W * Math.max(20, ...shown.flatMap((r) => [String(r.premise).length, String(r.hypothesis).length]));
  const barW = 120;
  const rowH = 3 * 13 + 10;
  const svg = s("svg", { class: "nle-fig-cell", width: Math.ceil(barX + 14 + barW + 48), height: 24 + shown.length * rowH + (pairs.length > MAX_PAIRS ? 18 : 0) });
  svg.append(text({ x: 12, y: 14, class: "embias-fig-line" }, `${cell[0]} / ${cell[1]}: ${pairs.length} sentence pairs`));
  shown.forEach((r, i) => {
    const y = 24 + i * rowH;
    svg.append(text({ x: 12, y: y + 12 }, `P: ${r.premise}`), text({ x: 12, y: y + 26 }, `H: ${r.hypothesis}`));
    LABELS.forEach((label, k) => {
      const yy = y + k * 13;
      const value = Math.max(0, Math.min(1, Number(r[label]) || 0));
      svg.append(
        text({ x: barX, y: yy + 10 }, label[0]),
        s("rect", { x: barX + 12, y: yy + 2, width: barW, height: 9, fill: "none", style: "stroke: var(--embias-grid)" }),
        s("rect", { class: `nle-fig-bar nle-fig-${label}`, x: barX + 12, y: yy + 2, width: value * barW, height: 9, fill: LABEL_COLOURS[label] }),
        text({ x: barX + 16 + barW, y: yy + 10 }, fmt(r[label])),
      );
    });
  });
  if (pairs.length > MAX_PAIRS) svg.append(text({ x: 12, y: 24 + shown.length * rowH + 12 }, `… and ${pairs.length - MAX_PAIRS} more pairs (in the CSV)`));
  return svg;
}

/** [measure, value, interval or null] of one level of the scores trait (its `<measure>_interval` and `n` keys
 * are not measures of their own). */
export function measuresOf(level) {
  return Object.entries(level || {}).filter(([m]) => m !== "n" && !m.endsWith("_interval"))
    .map(([m, v]) => [m, v, level[`${m}_interval`] || null]);
}

/** Title, model, the headline neutrality scores and n, and the legend of the exported figure (from traits). */
export function nliFigureSpec(model) {
  const hm = model.get("heatmap") || {};
  const sc = model.get("scores") || {};
  const p = model.get("progress") || {};
  const size = model.get("size") || {};
  const label = hm.label || model.get("label") || "neutral";
  const scores = [["pairs", "sentence pairs"], ["word_pairs", "word pairs"]].filter(([k]) => sc[k]).map(([k, name]) =>
    `over ${name}: ${measuresOf(sc[k]).map(([m, v, iv]) => `${m.replaceAll("_", " ")} ${formatValue(v, "number")}${iv ? ` ${formatInterval(iv, "number")}` : ""}`).join(", ")}`);
  const scale = heatScale((hm.values || []).flat(), label);
  const [[v0, t0], [v1, t1]] = scale.ends;
  const legend = [[`${fmt(v0)} ${t0}`, heatColor(0)], [`${fmt(v1)} ${t1}`, heatColor(1)]];
  if ((model.get("cell") || []).length === 2) legend.push(...LABELS.map((l) => [`P(${l})`, LABEL_COLOURS[l]]));
  return figureFrame({
    test: `NLI bias probe ${model.get("probe") || ""}: mean P(${label}) per word pair (1 = every pair neutral)`,
    model: model.get("model_name") || "?",
    subtitle: `model: ${model.get("model_name") || "?"}; Dev et al. (2020)`,
    lines: [
      ...scores,
      `n = ${(p.n_scored ?? 0).toLocaleString("en")} of ${(p.n_pairs ?? size.n_pairs ?? 0).toLocaleString("en")} sentence pairs` +
        (size.premise_words ? ` (${size.premise_words} premise × ${size.hypothesis_words} hypothesis words × ${size.templates} templates)` : "") +
        (p.stopped ? "; stopped early" : ""),
    ],
    legend,
  });
}
