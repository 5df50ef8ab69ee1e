// The effect-size bars' exported figure (WEAT, SEAT, the sense explorer) in the report's figure style,
// through the shared frame (lib/figure_frame.js): test and model in the title, d with its interval, p and n
// written by the one number formatter (lib/format.js), the stability verdict, the sets' colours, the zero
// line, and the significance mark's alpha and correction in the legend.
import { figureFrame } from "./figure_frame.js";
import { formatStat, formatValue } from "./format.js";
import { intervalText } from "./robustness.js";

/** What the exported figure states besides the bars: the result's title, model, d, p and n, a legend. */
export function figureSpec(model) {
  const d = model.get("effect_size");
  const p = model.get("p_value");
  const cats = model.get("categories") || {};
  const rows = model.get("per_word") || [];
  const count = (set) => new Set(rows.filter((r) => r.set === set).map((r) => r.word)).size;
  const numbers = d === null || d === undefined
    ? "d undefined"
    : `d = ${formatValue(d, "effect")} ${intervalText(model.get("effect_size_interval"))}   ${p === null || p === undefined ? "p = n/a" : formatStat("p", p, "p", model.get("alpha"))}${model.get("significant") ? " *" : ""}   n = ${count("targ1")} + ${count("targ2")} target words`;
  const stability = model.get("stability") || {};
  const trust = stability.verdict ? `stability: ${stability.verdict}${stability.reason ? `: ${stability.reason}` : ""} `
    + `(${stability.rule})` : "";
  const cos = model.get("cos_label") || "mean cos";
  const name = model.get("model_name") || "";
  const subtitle = model.get("subtitle") || "";
  return figureFrame({
    test: model.get("title") || model.get("test_name") || "",
    model: name,
    subtitle: subtitle === `on ${name}` ? "" : subtitle,
    lines: [numbers, trust, model.get("method_text") || ""],
    legend: [
      [cats.targ1 || "X", "esb-targ1"], [cats.targ2 || "Y", "esb-targ2"],
      [`bar: s(w, A, B) = ${cos}(w, ${cats.attr1 || "A"}) − ${cos}(w, ${cats.attr2 || "B"})`, null],
      ...(intervalText(model.get("effect_size_interval")) ? [["whiskers: the interval of d", null]] : []),
    ],
    ref: [0, "no bias (d = 0, s = 0)"],
    alpha: model.get("alpha"),
    correction: model.get("correction"),
  });
}
