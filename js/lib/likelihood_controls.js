// The paired-likelihood table's choices (score, convention, bias type, sort, grouping) and its CSV export.
// A choice is a synced trait; Python recomputes what it changes.
import { h } from "./dom.js";
import { toCSV } from "./export.js";
import { metricName } from "./likelihood.js";

function option(value, label, selected) {
  return h("option", { value, text: label, selected: value === selected });
}

/** The five selects, each bound to its trait; `onChange(trait)` runs after a choice is sent. */
export function createChoices(model, onChange) {
  const choices = {
    metric: h("select", { className: "plt-metric", title: "sentence score" }),
    convention: h("select", { className: "plt-convention", title: "how the bias score is reported" }),
    bias_type_filter: h("select", { className: "plt-filter", title: "show one bias type" }),
    sort_by: h("select", { className: "plt-sort", title: "row order" }),
    group_by: h("select", { className: "plt-group-by", title: "group rows and scores" }),
  };
  for (const [trait, select] of Object.entries(choices)) {
    select.addEventListener("change", () => {
      model.set(trait, select.value);
      model.save_changes();
      onChange(trait);
    });
  }
  return choices;
}

/** Each select's options from the model, the current value selected. */
export function fillChoices(choices, model) {
  const fill = (trait, options) =>
    choices[trait].replaceChildren(...options.map(([value, label]) => option(value, label, model.get(trait))));
  fill("metric", (model.get("metrics") || []).map((m) => [m, metricName(m)]));
  fill("convention", [["crows", "% stereo (CrowS, 50)"], ["zhou", "% - 50 (Zhou et al., 0)"]]);
  fill("bias_type_filter", [["", "all"], ...(model.get("bias_types") || []).map((t) => [t, t])]);
  fill("sort_by", [
    ["input", "as entered"],
    ["difference", "difference, high first"],
    ["-difference", "difference, low first"],
    ["abs", "|difference|"],
  ]);
  fill("group_by", [["", "none"], ["bias_type", "bias / sense type"], ["sense_key", "sense key"]]);
}

const CSV_COLUMNS = [
  "model", "metric", "bias_type", "direction", "sense_key", "sent_more", "sent_less", "more_score", "less_score",
  "difference", "preferred", "warning", "error",
];

/** The shown rows, in their order, as CSV (spreadsheet-safe cells, see lib/export.js). */
export function rowsCSV(model) {
  const rows = model.get("rows") || [];
  const order = model.get("order") || [];
  const name = model.get("model_name");
  const metric = model.get("metric");
  return toCSV(
    CSV_COLUMNS,
    order.filter((i) => i < rows.length).map((i) => rows[i]).map((r) => [
      name, metric, r.bias_type, r.direction || "", r.sense_key || "", r.stereo.text, r.anti.text,
      r.stereo.score, r.anti.score, r.difference, r.preferred, r.warning || "", r.error || "",
    ]),
  );
}
