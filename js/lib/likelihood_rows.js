// The paired-likelihood table's rows: a scored or failed pair, a group heading, the header. Text only
// (textContent, never HTML); the numbers are the row's own, sent by Python.
import { h } from "./dom.js";
import { formatValue } from "./format.js";
import { formatDifference, sentenceWithTokens } from "./likelihood.js";
import { button, group } from "./ui.js";

const HEADINGS = [
  "bias type / sense",
  "more stereotypical (sent_more)",
  "score",
  "less stereotypical (sent_less)",
  "score",
  "more - less",
  "prefers",
  "",
];

// fixed column widths (with `table-layout: fixed` in the CSS): editing a row or a new page of rows never moves
// the columns; the two sentences share what is left
const COLUMNS = ["plt-col-type", "plt-col-sentence", "plt-col-score", "plt-col-sentence", "plt-col-score", "plt-col-difference",
  "plt-col-prefers", "plt-col-actions"];

/** The table's column widths and header row (a colgroup and a thead, in that order). */
export function tableHead() {
  return [
    h("colgroup", {}, ...COLUMNS.map((className) => h("col", { className }))),
    h("thead", {}, h("tr", {}, ...HEADINGS.map((text) => h("th", { text })))),
  ];
}

/** One sentence with its tokens, marked when the model prefers it. */
export function sideCell(side, role, preferred) {
  const cell = h("td", { className: `plt-sentence plt-${role}`, dataset: { role } });
  if (preferred === role) {
    cell.classList.add("plt-preferred");
    cell.append(h("span", { className: "plt-mark", text: "preferred", title: "the model scores this sentence higher" }));
  }
  cell.append(sentenceWithTokens(side, role));
  return cell;
}

// CrowS-Pairs direction only labels the row: sent_more stays in the left column either way
function typeCell(row) {
  return h(
    "td",
    { className: "plt-type", dataset: { direction: row.direction || "stereo" } },
    h("span", { text: row.bias_type }),
    row.direction === "antistereo" ? h("span", { className: "plt-direction", text: " (antistereo)" }) : null,
    row.sense_key ? h("code", { className: "plt-sense-key", text: row.sense_key }) : null,
  );
}

function failedCells(row) {
  return [
    h("td", { className: "plt-sentence", text: row.stereo.text }),
    h("td", {}),
    h("td", { className: "plt-sentence", text: row.anti.text }),
    h("td", { className: "plt-row-error", attrs: { colspan: 3 }, text: row.error }),
  ];
}

function prefersCell(preferred, baseline) {
  const cell = h("td", { className: "plt-prefers" });
  if (preferred === "stereo" || preferred === "anti") {
    const sw = h("span", { className: "embias-swatch" });
    sw.style.background = `var(--embias-c-${preferred})`;
    cell.append(sw, preferred);
  } else cell.textContent = preferred === "tie" ? "tie" : preferred || "";
  if (baseline) {
    // the baseline model's preference for the same pair (after its metric's rounding), sent by Python
    cell.append(h("span", {
      className: baseline.disagrees ? "plt-baseline plt-baseline-disagrees" : "plt-baseline",
      text: baseline.disagrees ? `baseline: ${baseline.preferred} (disagree)` : `baseline: ${baseline.preferred}`,
      title: baseline.disagrees ? "the baseline model prefers the other sentence (or a tie)" : "the baseline model agrees",
    }));
  }
  return cell;
}

function scoredCells(row) {
  const antiCell = sideCell(row.anti, "anti", row.preferred);
  if (row.warning) {
    antiCell.append(h("span", { className: "plt-pair-warning", text: `⚠ ${row.warning}`, attrs: { role: "note" } }));
  }
  return [
    sideCell(row.stereo, "stereo", row.preferred),
    h("td", { className: "plt-score plt-stereo-score", text: formatValue(row.stereo.score, "number") }),
    antiCell,
    h("td", { className: "plt-score plt-anti-score", text: formatValue(row.anti.score, "number") }),
    h("td", {
      className: "plt-difference",
      text: formatDifference(row.difference),
      dataset: { difference: String(row.difference) },
    }),
    prefersCell(row.preferred, row.baseline),
  ];
}

/** A pair's row: type, both sentences with scores (or its error), difference, preference, edit/remove. */
export function pairRow(row, { onEdit, onRemove }) {
  const tr = h("tr", { className: "plt-row", dataset: { index: row.index, preferred: row.preferred || "none" } });
  if (row.baseline) tr.dataset.disagrees = String(Boolean(row.baseline.disagrees));
  const edit = button("edit", onEdit, { className: "plt-edit", title: "edit this pair (Enter saves, Escape cancels)" });
  const remove = button("remove", onRemove, { className: "plt-remove", title: "remove this pair" });
  tr.append(typeCell(row));
  if (row.error) {
    tr.classList.add("plt-failed");
    tr.append(...failedCells(row));
  } else {
    if (row.warning) tr.classList.add("plt-warned");
    tr.append(...scoredCells(row));
  }
  tr.append(h("td", { className: "plt-actions" }, group(edit, remove)));
  return tr;
}

/** The heading above a group's rows: its name, gloss or problem, and its score (from `summary.groups`). */
export function headingRow(name, found, bySense) {
  return h(
    "tr",
    { className: "plt-group-row", dataset: { group: name } },
    h(
      "td",
      { attrs: { colspan: 8 } },
      h("span", { className: bySense ? "plt-group-name plt-sense-key" : "plt-group-name", text: name }),
      found && found.gloss ? h("span", { className: "plt-group-gloss", text: found.gloss }) : null,
      found && found.problem ? h("span", { className: "plt-group-problem", text: found.problem }) : null,
      found
        ? h("span", { className: "plt-group-score", text: `bias score ${formatValue(found.score, "percent")}, ${found.n} pair${found.n === 1 ? "" : "s"}` })
        : null,
    ),
  );
}
