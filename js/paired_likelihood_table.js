// PairedLikelihoodTable: stereotypical and anti-stereotypical sentences side by
// side, each token shaded by its log-probability, the sentence scores, their
// difference and the preferred side; a summary bar with the bias score and its
// unbiased reference line. Every number comes from Python; this view draws,
// and sends back only what the user typed (the `pairs` trait) and view choices.
// The pieces: lib/likelihood_summary.js (bars, legend), lib/likelihood_rows.js
// (rows), lib/likelihood_editor.js (typing pairs), lib/likelihood_controls.js.
import "./paired_likelihood_table.css";
import { h, listen, s } from "./lib/dom.js";
import { downloadText, exportButtons, fileStem } from "./lib/export.js";
import { formatInterval, formatValue } from "./lib/format.js";
import { figureFrame } from "./lib/figure_frame.js";
import { createHistory } from "./lib/history.js";
import { metricName, replacePair, withGroupHeadings } from "./lib/likelihood.js";
import { createChoices, fillChoices, rowsCSV } from "./lib/likelihood_controls.js";
import { createAdder, editorRow } from "./lib/likelihood_editor.js";
import { createPager, pageOf } from "./lib/likelihood_pages.js";
import { headingRow, pairRow, tableHead } from "./lib/likelihood_rows.js";
import { BAR_WIDTH, drawGroups, drawLegend, drawSummary } from "./lib/likelihood_summary.js";
import { busyIndicator, button, errorState, helpButton, mountRoot, toolbar, watchWidth } from "./lib/ui.js";

const REDRAW_ON = [
  "rows", "order", "summary", "bias_types", "metrics", "metric", "convention", "bias_type_filter", "sort_by",
  "group_by", "model_name", "demo_note", "error", "stale", "refused", "pairs", "comparison", "baseline_name",
  "disagreements_only",
];

/** With a baseline model: the paired change of the bias score (numbers from Python), one line of text. */
export function comparisonLine(model) {
  const c = model.get("comparison") || {};
  const base = model.get("baseline_name");
  if (!base || !c.change) return "";
  const ch = c.change;
  const sign = ch.change > 0 ? "+" : "";
  return `vs ${base}: bias score ${formatValue(ch.before, "percent")} -> ${formatValue(ch.after, "percent")}, change ` +
    `${sign}${formatValue(ch.change, "percent")} ${formatInterval(ch.change_interval, "percent")} ` +
    `(paired bootstrap); McNemar p ${formatValue(ch.p_value, "p")} (${ch.counts.b} pairs stereo -> not, ` +
    `${ch.counts.c} not -> stereo); the models disagree on ${c.n_disagree} of ${c.n_pairs} pairs`;
}

/** Pairs with an undo history: every edit is sent to Python and remembered. */
function createPairs(model, busy) {
  const history = createHistory(100);
  const undo = button("Undo", () => {
    const last = history.undo();
    if (last === undefined) return;
    model.set("pairs", last);
    model.save_changes();
    busy.pending();
    undo.disabled = !history.canUndo();
  }, { className: "plt-undo", title: "undo the last edit of the pairs" });
  undo.disabled = true;
  function set(pairs) {
    history.push(model.get("pairs") || []);
    undo.disabled = false;
    model.set("pairs", pairs);
    model.save_changes();
    busy.pending();
  }
  return { undo, set };
}

function exportsFor(model, summarySvg) {
  const name = () => model.get("model_name") || "";
  const pairsJSON = () =>
    downloadText(JSON.stringify(model.get("pairs") || [], null, 2) + "\n", `${fileStem(name() || "pairs", "pairs")}.json`,
      "application/json");
  return exportButtons({
    stem: () => fileStem(name() || "model", model.get("metric")),
    figure: () => {
      const summary = model.get("summary") || {};
      const scored = summary.score !== null && summary.score !== undefined;
      return figureFrame({
        test: `${metricName(model.get("metric"))} bias score`,
        model: name() || "model",
        subtitle: `${summary.metric_label || ""}. ${summary.convention_label || ""}`.trim(),
        lines: [...(comparisonLine(model) ? [comparisonLine(model)] : []), scored ? `bias score ${formatValue(summary.score, "percent")} ${formatInterval(summary.score_interval, "percent")} (${summary.group || "all pairs"}, N = ${summary.n} pairs, ${summary.n_ties} ties; ${summary.reference ?? 50} = unbiased only without ties)` : "no scored pairs",
          ...(scored && summary.percent_of_decided_interval ? [`decided pairs ${formatValue(summary.percent_of_decided, "percent")}% ${formatInterval(summary.percent_of_decided_interval, "percent")} prefer the more stereotypical sentence, sign test p ${formatValue(summary.p_value, "p")}`] : []),
          ...(summary.groups || []).map((g) => `${g.name}: ${formatValue(g.score, "percent")} ${formatInterval(g.score_interval, "percent")} (N = ${g.n})`)],
        legend: [["prefers the more stereotypical sentence", "plt-bar-stereo"], ["prefers the less stereotypical sentence", "plt-bar-anti"],
          ...(scored && summary.score_interval ? [[`whiskers: ${Math.round(100 * summary.score_interval.level)}% Wilson interval${summary.n_ties ? "; dot: the decided pairs' share" : ""}`, null]] : [])],
        ref: [summary.reference ?? 50, "unbiased"],
      });
    },
    csv: () => rowsCSV(model),
    svgs: () => [summarySvg],
    extra: [["Pairs JSON", pairsJSON, "download the pairs as typed (JSON)", "json"]],
  });
}

function labelled(text, node) {
  return h("label", { className: "embias-label" }, text, node);
}

/** The table body: one page of pair rows (or the editor of one), with group headings when grouped. */
function createBody(model, pairs) {
  const body = h("tbody", {});
  let editing = -1;
  let page = 0;
  const pager = createPager((delta) => {
    page += delta;
    editing = -1;
    draw();
  });
  function rowFor(row) {
    const records = model.get("pairs") || [];
    if (row.index === editing) {
      const done = () => { editing = -1; };
      return editorRow(records[row.index], (record) => { done(); pairs.set(replacePair(records, row.index, record)); },
        () => { done(); draw(); });
    }
    return pairRow(row, {
      onEdit: () => {
        editing = row.index;
        draw();
        body.querySelector(".plt-editing .plt-input")?.focus();
      },
      onRemove: () => pairs.set(records.filter((_, i) => i !== row.index)),
    });
  }
  function heading(name) {
    const found = ((model.get("summary") || {}).groups || []).find((g) => g.name === name);
    return headingRow(name, found, model.get("group_by") === "sense_key");
  }
  function draw() {
    const rows = model.get("rows") || [];
    const order = model.get("order") || [];
    const field = model.get("group_by");
    const shown = pageOf(order, rows.length, page);
    page = shown.page;
    pager.show(shown);
    if (field) {
      const entries = withGroupHeadings(shown.indices, rows, (r) => (field === "sense_key" ? r.sense_key || "(none)" : r.bias_type));
      body.replaceChildren(...entries.map((e) => ("heading" in e ? heading(e.heading) : rowFor(rows[e.index]))));
    } else {
      body.replaceChildren(...shown.indices.map((i) => rowFor(rows[i])));
    }
    return shown.total;
  }
  /** Back to the first page (a new sort, filter or grouping). */
  function firstPage() {
    page = 0;
  }
  return { body, draw, pager: pager.node, firstPage };
}

function render({ model, el }) {
  mountRoot(el, "embias-paired-likelihood-table");
  const busy = busyIndicator(el);
  const error = errorState(el);
  const pairs = createPairs(model, busy);
  const title = h("div", { className: "plt-title" });
  const demo = h("div", { className: "plt-demo", attrs: { role: "note" } });
  const choices = createChoices(model, (trait) => {
    if (trait === "metric" || trait === "convention") busy.pending();
  });
  const summaryText = h("div", { className: "plt-summary-text" });
  const comparisonText = h("div", { className: "plt-comparison-text", attrs: { role: "note" } });
  const onlyDisagree = h("input", { type: "checkbox", className: "plt-disagreements-only" });
  onlyDisagree.addEventListener("change", () => {
    model.set("disagreements_only", onlyDisagree.checked);
    model.save_changes();
  });
  const onlyLabel = labelled("disagreements only ", onlyDisagree);
  const summarySvg = s("svg", { width: BAR_WIDTH, height: 46, class: "plt-summary" });
  let barWidth = BAR_WIDTH; // the summary bar follows the widget's width (watchWidth below), up to BAR_WIDTH
  const help = helpButton(["cps", "pll", "pll_word_l2r", "aul", "more_likely", "minimal_edit"]);
  const controls = toolbar(
    labelled("score ", choices.metric),
    labelled("report ", choices.convention),
    labelled("bias type ", choices.bias_type_filter),
    labelled("sort ", choices.sort_by),
    labelled("group by ", choices.group_by),
    onlyLabel,
    pairs.undo,
    exportsFor(model, summarySvg),
    busy.node,
    h("span", { className: "embias-spacer" }),
    help.button,
  );
  const groupsBox = h("div", { className: "plt-groups" });
  const metricLabel = h("div", { className: "plt-metric-label" });
  const table = createBody(model, pairs);
  const adder = createAdder((record) => pairs.set([...(model.get("pairs") || []), record]));
  const legend = h("div", { className: "plt-legend" });

  function update() {
    const summary = model.get("summary") || {};
    title.textContent = `Paired likelihood: ${model.get("model_name") || ""}`;
    demo.textContent = model.get("demo_note") || "";
    demo.hidden = !model.get("demo_note");
    fillChoices(choices, model);
    comparisonText.textContent = comparisonLine(model);
    comparisonText.hidden = !comparisonText.textContent;
    onlyLabel.hidden = !model.get("baseline_name");
    onlyDisagree.checked = Boolean(model.get("disagreements_only"));
    const failed = error.show(model); // an error, or scores of previous pairs: cleared from view
    busy.node.title = `last scoring took ${Math.round(model.get("elapsed_ms") || 0)} ms`;
    drawSummary(summarySvg, summaryText, failed ? { ...summary, score: null } : summary, barWidth);
    if (failed) summaryText.textContent = "bias score: not computed (see the error)";
    drawGroups(groupsBox, failed ? { ...summary, groups: [] } : summary);
    el.dataset.score = failed || summary.score === null || summary.score === undefined ? "" : String(summary.score);
    metricLabel.textContent = `${summary.metric_label || ""}. Bias score: ${summary.convention_label || ""}. Higher (closer to 0) log P is more likely.`;
    drawLegend(legend, summary);
    el.dataset.nRows = String(table.draw());
  }

  const unlisten = listen(model, REDRAW_ON, update);
  const unlistenView = listen(model, ["sort_by", "group_by", "bias_type_filter"], () => {
    table.firstPage();
    update();
  });
  const unwatch = watchWidth(el, (width) => {
    barWidth = width;
    update();
  }, { min: 200, max: BAR_WIDTH });
  const unlistenBusy = listen(model, ["busy"], () => {
    if (model.get("busy")) busy.set(true, "scoring…");
  });
  const unlistenRevision = listen(model, ["revision"], () => {
    const ms = busy.done();
    if (ms !== null) el.dataset.lastRoundTripMs = String(Math.round(ms));
    update();
  });
  update();
  const tableNode = h("table", { className: "plt-table" }, ...tableHead(), table.body);
  el.append(title, demo, controls, help.panel, summaryText, comparisonText, summarySvg, groupsBox, metricLabel, error.node, table.pager, tableNode,
    adder, legend);
  return () => {
    unwatch();
    unlistenView();
    unlisten();
    unlistenBusy();
    unlistenRevision();
  };
}

export default { render };
