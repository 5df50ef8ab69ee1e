// The RIPA plot's exported figure (lib/export.js lays it out) in the report's figure style, through the
// shared frame (lib/figure_frame.js): test and model in the title, the summary and n, the group colours,
// the intervals' whiskers where the points have them, the zero line (no projection on b).
import { figureFrame } from "./figure_frame.js";

/** True when a point has its RIPA interval over the relation pairs (both bounds finite). */
export const hasInterval = (p) => Number.isFinite(p.low) && Number.isFinite(p.high);

/** {title, subtitle, lines, legend} of the exported figure; `colors`: group -> colour, `pairText`: the pairs' dots. */
export function ripaFigure(model, colors, pairText) {
  const points = model.get("points") || [];
  const whiskers = points.some(hasInterval) ? [["line through a dot: its 95% bias-corrected bootstrap interval over the relation pairs", null]] : [];
  return figureFrame({
    test: "RIPA: words projected on the relation vector b",
    model: model.get("model_name") || "model",
    subtitle: model.get("axis_label") || "",
    lines: [model.get("summary") || "", `n = ${points.length} words in ${new Set(points.map((p) => p.group)).size} rows; ${pairText}`],
    legend: [...[...colors].filter(([g]) => points.some((p) => p.group === g)), ...whiskers],
    ref: [0, "no projection on b"],
  });
}
