// PairedLikelihoodTable: stereotypical and anti-stereotypical sentences side by
// side, each token shaded by its log-probability, the sentence scores, their
// difference and the preferred side; a summary bar with the bias score and its
// unbiased reference line. Every number comes from Python; this view draws,
// and sends back only what the user typed (the `pairs` trait) and view choices.
import "./paired_likelihood_table.css";
import { h, listen, s } from "./lib/dom.js";
import { linear } from "./lib/scale.js";
import { downloadText, exportButtons, fileStem, toCSV } from "./lib/export.js";
import { createHistory } from "./lib/history.js";
import { formatDifference, heatColor, replacePair, sentenceWithTokens, withGroupHeadings } from "./lib/likelihood.js";
import { busyIndicator, button, errorState, group, helpButton, mountRoot, toolbar } from "./lib/ui.js";

const BAR_WIDTH = 420;

function option(value, label, selected) {
  return h("option", { value, text: label, selected: value === selected });
}

function drawSummary(svg, text, summary) {
  const [lo, hi] = summary.axis || [0, 100];
  const x = linear([lo, hi], [10, BAR_WIDTH - 10]);
  const ref = summary.reference ?? 50;
  svg.replaceChildren(s("rect", { x: 10, y: 8, width: BAR_WIDTH - 20, height: 18, class: "plt-track" }));
  for (const tick of [lo, (lo + ref) / 2, ref, (ref + hi) / 2, hi]) {
    svg.append(s("text", { x: x(tick), y: 40, "text-anchor": "middle", class: "plt-tick" }, String(tick)));
  }
  const score = summary.score;
  if (score !== null && score !== undefined) {
    const a = x(Math.min(ref, score));
    const b = x(Math.max(ref, score));
    svg.append(
      s("rect", {
        x: a.toFixed(2),
        y: 10,
        width: Math.max(1, b - a).toFixed(2),
        height: 14,
        class: score > ref ? "plt-bar plt-bar-stereo" : "plt-bar plt-bar-anti",
      }),
    );
  }
  svg.append(
    s("line", { x1: x(ref), x2: x(ref), y1: 2, y2: 32, class: "plt-reference", "data-reference": String(ref) }),
  );
  const who = summary.group || "all pairs";
  text.textContent =
    score === null || score === undefined
      ? `${who}: no scored pairs`
      : `${summary.metric.toUpperCase()} bias score (${who}): ${Number(score).toFixed(2)}  ` +
        `[${summary.n_stereo_preferred} of ${summary.n} pairs prefer the more stereotypical sentence; ` +
        `${summary.convention} convention, ${ref} = unbiased]`;
}

const GROUP_BAR = 160;

/** One line per group: name, gloss, a small bar from the reference, the score and counts (all from Python). */
function drawGroups(box, summary) {
  const groups = summary.groups || [];
  box.hidden = groups.length === 0;
  const [lo, hi] = summary.axis || [0, 100];
  const ref = summary.reference ?? 50;
  const x = linear([lo, hi], [2, GROUP_BAR - 2]);
  box.replaceChildren(
    h("div", { className: "plt-groups-title", text: `bias score by ${summary.group_by_label || "group"}` }),
    ...groups.map((g) => {
      const a = x(Math.min(ref, g.score));
      const b = x(Math.max(ref, g.score));
      const svg = s("svg", { width: GROUP_BAR, height: 14, class: "plt-group-bar" });
      svg.append(
        s("rect", { x: 2, y: 2, width: GROUP_BAR - 4, height: 10, class: "plt-track" }),
        s("rect", {
          x: a.toFixed(2),
          y: 3,
          width: Math.max(1, b - a).toFixed(2),
          height: 8,
          class: g.score > ref ? "plt-bar plt-bar-stereo" : "plt-bar plt-bar-anti",
        }),
        s("line", { x1: x(ref), x2: x(ref), y1: 0, y2: 14, class: "plt-reference" }),
      );
      const means =
        g.mean_stereo === null || g.mean_stereo === undefined
          ? ""
          : `; mean sentence score stereo ${Number(g.mean_stereo).toFixed(3)} (${g.n_stereo_sentences}) ` +
            `vs anti ${Number(g.mean_anti).toFixed(3)} (${g.n_anti_sentences})`;
      return h(
        "div",
        { className: "plt-group", dataset: { group: g.name, score: String(g.score) } },
        h("span", { className: summary.group_by === "sense_key" ? "plt-group-name plt-sense-key" : "plt-group-name", text: g.name }),
        svg,
        h("span", {
          className: "plt-group-score",
          text: `${Number(g.score).toFixed(2)} (${g.n_stereo_preferred}/${g.n} pairs)${means}`,
        }),
        g.gloss ? h("span", { className: "plt-group-gloss", text: g.gloss }) : null,
        g.problem ? h("span", { className: "plt-group-problem", text: g.problem }) : null,
        g.sense_keys && g.sense_keys.length
          ? h("span", { className: "plt-group-gloss", text: g.sense_keys.join(", ") })
          : null,
      );
    }),
  );
}

function sideCell(side, role, preferred) {
  const cell = h("td", { className: `plt-sentence plt-${role}`, dataset: { role } });
  if (preferred === role) {
    cell.classList.add("plt-preferred");
    cell.append(h("span", { className: "plt-mark", text: "preferred", title: "the model scores this sentence higher" }));
  }
  cell.append(sentenceWithTokens(side, role));
  return cell;
}

function editorRow(record, onSave, onCancel) {
  const stereo = h("input", { className: "plt-input", value: record.stereo, dataset: { field: "stereo" }, attrs: { "aria-label": "more stereotypical sentence" } });
  const anti = h("input", { className: "plt-input", value: record.anti, dataset: { field: "anti" }, attrs: { "aria-label": "less stereotypical sentence" } });
  const type = h("input", { className: "plt-input plt-type-input", value: record.bias_type, dataset: { field: "bias_type" }, attrs: { "aria-label": "bias type" } });
  const sense = h("input", {
    className: "plt-input plt-type-input",
    value: record.sense_key || "",
    placeholder: "sense key",
    dataset: { field: "sense_key" },
  });
  const save = () =>
    onSave({ ...record, stereo: stereo.value, anti: anti.value, bias_type: type.value, sense_key: sense.value });
  for (const input of [stereo, anti, type, sense]) {
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") save();
      if (e.key === "Escape") onCancel();
    });
  }
  return h(
    "tr",
    { className: "plt-editing" },
    h("td", {}, type, sense),
    h("td", { className: "plt-sentence", attrs: { colspan: 2 } }, stereo),
    h("td", { className: "plt-sentence", attrs: { colspan: 2 } }, anti),
    h("td", {}),
    h("td", {}),
    h("td", {}, group(button("save", save, { className: "plt-save" }), button("cancel", onCancel, { className: "plt-cancel" }))),
  );
}

function render({ model, el }) {
  mountRoot(el, "embias-paired-likelihood-table");
  let editing = -1;
  const history = createHistory(100);
  const busy = busyIndicator(el);
  const error = errorState(el);

  const title = h("div", { className: "plt-title" });
  const demo = h("div", { className: "plt-demo", attrs: { role: "note" } });
  const metric = h("select", { className: "plt-metric", title: "sentence score" });
  const convention = h("select", { className: "plt-convention", title: "how the bias score is reported" });
  const filter = h("select", { className: "plt-filter", title: "show one bias type" });
  const sort = h("select", { className: "plt-sort", title: "row order" });
  const groupBy = h("select", { className: "plt-group-by", title: "group rows and scores" });
  const undo = button("Undo", () => {
    const last = history.undo();
    if (last === undefined) return;
    model.set("pairs", last);
    model.save_changes();
    busy.pending();
    undo.disabled = !history.canUndo();
  }, { className: "plt-undo", title: "undo the last edit of the pairs" });
  undo.disabled = true;
  const stem = () => fileStem(model.get("model_name") || "model", model.get("metric"));
  const exportsNode = exportButtons({
    stem,
    title: () => `${(model.get("metric") || "").toUpperCase()} on ${model.get("model_name") || ""}`,
    csv: () => {
      const rows = model.get("rows") || [];
      const order = model.get("order") || [];
      return toCSV(
        ["model", "metric", "bias_type", "direction", "sense_key", "sent_more", "sent_less", "more_score", "less_score", "difference", "preferred", "warning", "error"],
        order.filter((i) => i < rows.length).map((i) => rows[i]).map((r) => [
          model.get("model_name"), model.get("metric"), r.bias_type, r.direction || "", r.sense_key || "", r.stereo.text, r.anti.text,
          r.stereo.score, r.anti.score, r.difference, r.preferred, r.warning || "", r.error || "",
        ]),
      );
    },
    svgs: () => [summarySvg],
    extra: [["Pairs JSON", () => downloadText(JSON.stringify(model.get("pairs") || [], null, 2) + "\n", `${fileStem(model.get("model_name") || "pairs", "pairs")}.json`, "application/json"), "download the pairs as typed (JSON)", "json"]],
  });
  const help = helpButton(["cps", "pll", "aul", "more_likely", "minimal_edit"]);
  const controls = toolbar(
    h("label", { className: "embias-label" }, "score ", metric),
    h("label", { className: "embias-label" }, "report ", convention),
    h("label", { className: "embias-label" }, "bias type ", filter),
    h("label", { className: "embias-label" }, "sort ", sort),
    h("label", { className: "embias-label" }, "group by ", groupBy),
    undo,
    exportsNode,
    busy.node,
    h("span", { className: "embias-spacer" }),
    help.button,
  );
  const summaryText = h("div", { className: "plt-summary-text" });
  const summarySvg = s("svg", { width: BAR_WIDTH, height: 46, class: "plt-summary" });
  const groupsBox = h("div", { className: "plt-groups" });
  const metricLabel = h("div", { className: "plt-metric-label" });
  const body = h("tbody", {});
  const table = h(
    "table",
    { className: "plt-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { text: "bias type / sense" }),
        h("th", { text: "more stereotypical (sent_more)" }),
        h("th", { text: "score" }),
        h("th", { text: "less stereotypical (sent_less)" }),
        h("th", { text: "score" }),
        h("th", { text: "more - less" }),
        h("th", { text: "prefers" }),
        h("th", { text: "" }),
      ),
    ),
    body,
  );
  const newStereo = h("input", { className: "plt-new plt-new-stereo", placeholder: "more stereotypical sentence", attrs: { "aria-label": "new more stereotypical sentence" } });
  const newAnti = h("input", { className: "plt-new plt-new-anti", placeholder: "less stereotypical sentence", attrs: { "aria-label": "new less stereotypical sentence" } });
  const newType = h("input", { className: "plt-new plt-new-type", placeholder: "bias type", attrs: { "aria-label": "bias type of the new pair" } });
  const newSense = h("input", { className: "plt-new plt-new-sense", placeholder: "sense key (optional)", attrs: { "aria-label": "sense key of the new pair" } });
  const add = button("add pair", () => addPair(), { className: "plt-add", title: "add the pair (both sentences needed)" });
  const hint = h("div", { className: "plt-adder-hint", attrs: { "aria-live": "polite" } });
  const adder = h("div", { className: "plt-adder" }, newStereo, newAnti, newType, newSense, add, hint);
  const legend = h("div", { className: "plt-legend" });

  function setPairs(pairs) {
    history.push(model.get("pairs") || []);
    undo.disabled = false;
    model.set("pairs", pairs);
    model.save_changes();
    busy.pending();
  }

  /** Add the typed pair only when both sentences are there; otherwise point to the missing one. */
  function addPair() {
    const record = { stereo: newStereo.value.trim(), anti: newAnti.value.trim(), bias_type: newType.value.trim() };
    if (newSense.value.trim()) record.sense_key = newSense.value.trim();
    const missing = !record.stereo ? newStereo : !record.anti ? newAnti : null;
    if (missing) {
      hint.textContent = `type the ${missing === newStereo ? "more" : "less"} stereotypical sentence too`;
      missing.focus();
      return;
    }
    hint.textContent = "";
    setPairs([...(model.get("pairs") || []), record]);
    for (const input of [newStereo, newAnti, newType, newSense]) input.value = "";
    newStereo.focus();
  }
  // Enter moves on to the next box, and adds the pair from the last boxes (or when both sentences are typed)
  const next = new Map([[newStereo, newAnti], [newAnti, newType]]);
  for (const input of [newStereo, newAnti, newType, newSense]) {
    input.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        input.value = "";
        hint.textContent = "";
        return;
      }
      if (e.key !== "Enter") return;
      e.preventDefault();
      if (next.has(input) && !(newStereo.value.trim() && newAnti.value.trim())) next.get(input).focus();
      else addPair();
    });
  }
  for (const [select, trait] of [
    [metric, "metric"],
    [convention, "convention"],
    [filter, "bias_type_filter"],
    [sort, "sort_by"],
    [groupBy, "group_by"],
  ]) {
    select.addEventListener("change", () => {
      model.set(trait, select.value);
      model.save_changes();
      if (trait === "metric" || trait === "convention") busy.pending();
    });
  }

  function rowFor(row) {
    const pairs = model.get("pairs") || [];
    if (row.index === editing) {
      return editorRow(
        pairs[row.index],
        (record) => {
          editing = -1;
          setPairs(replacePair(pairs, row.index, record));
        },
        () => {
          editing = -1;
          draw();
        },
      );
    }
    const tr = h("tr", { className: "plt-row", dataset: { index: row.index, preferred: row.preferred || "none" } });
    const edit = button("edit", () => {
      editing = row.index;
      draw();
      body.querySelector(".plt-editing .plt-input")?.focus();
    }, { className: "plt-edit", title: "edit this pair (Enter saves, Escape cancels)" });
    const remove = button("remove", () => setPairs(pairs.filter((_, i) => i !== row.index)), { className: "plt-remove", title: "remove this pair" });
    // CrowS-Pairs direction only labels the row: sent_more stays in the left column either way
    tr.append(
      h(
        "td",
        { className: "plt-type", dataset: { direction: row.direction || "stereo" } },
        h("span", { text: row.bias_type }),
        row.direction === "antistereo" ? h("span", { className: "plt-direction", text: " (antistereo)" }) : null,
        row.sense_key ? h("code", { className: "plt-sense-key", text: row.sense_key }) : null,
      ),
    );
    if (row.error) {
      tr.classList.add("plt-failed");
      tr.append(
        h("td", { className: "plt-sentence", text: row.stereo.text }),
        h("td", {}),
        h("td", { className: "plt-sentence", text: row.anti.text }),
        h("td", { className: "plt-row-error", attrs: { colspan: 3 }, text: row.error }),
      );
    } else {
      const antiCell = sideCell(row.anti, "anti", row.preferred);
      if (row.warning) {
        tr.classList.add("plt-warned");
        antiCell.append(h("span", { className: "plt-pair-warning", text: `⚠ ${row.warning}`, attrs: { role: "note" } }));
      }
      const prefers = h("td", { className: "plt-prefers" });
      if (row.preferred === "stereo" || row.preferred === "anti") {
        const sw = h("span", { className: "embias-swatch" });
        sw.style.background = `var(--embias-c-${row.preferred})`;
        prefers.append(sw, row.preferred);
      } else prefers.textContent = row.preferred === "tie" ? "tie" : row.preferred || "";
      tr.append(
        sideCell(row.stereo, "stereo", row.preferred),
        h("td", { className: "plt-score plt-stereo-score", text: Number(row.stereo.score).toFixed(3) }),
        antiCell,
        h("td", { className: "plt-score plt-anti-score", text: Number(row.anti.score).toFixed(3) }),
        h("td", {
          className: "plt-difference",
          text: formatDifference(row.difference),
          dataset: { difference: String(row.difference) },
        }),
        prefers,
      );
    }
    tr.append(h("td", { className: "plt-actions" }, group(edit, remove)));
    return tr;
  }

  function headingRow(name) {
    const summary = model.get("summary") || {};
    const group = (summary.groups || []).find((g) => g.name === name);
    const bySense = model.get("group_by") === "sense_key";
    return h(
      "tr",
      { className: "plt-group-row", dataset: { group: name } },
      h(
        "td",
        { attrs: { colspan: 8 } },
        h("span", { className: bySense ? "plt-group-name plt-sense-key" : "plt-group-name", text: name }),
        group && group.gloss ? h("span", { className: "plt-group-gloss", text: group.gloss }) : null,
        group && group.problem ? h("span", { className: "plt-group-problem", text: group.problem }) : null,
        group
          ? h("span", { className: "plt-group-score", text: `bias score ${Number(group.score).toFixed(2)}, ${group.n} pairs` })
          : null,
      ),
    );
  }

  function draw() {
    const rows = model.get("rows") || [];
    const order = model.get("order") || [];
    const groupField = model.get("group_by");
    if (groupField) {
      const entries = withGroupHeadings(order, rows, (r) => (groupField === "sense_key" ? r.sense_key || "(none)" : r.bias_type));
      body.replaceChildren(...entries.map((e) => ("heading" in e ? headingRow(e.heading) : rowFor(rows[e.index]))));
    } else {
      body.replaceChildren(...order.filter((i) => i < rows.length).map((i) => rowFor(rows[i])));
    }
    el.dataset.nRows = String(order.length);
  }

  function update() {
    const summary = model.get("summary") || {};
    title.textContent = `Paired likelihood: ${model.get("model_name") || ""}`;
    demo.textContent = model.get("demo_note") || "";
    demo.hidden = !model.get("demo_note");
    metric.replaceChildren(...(model.get("metrics") || []).map((m) => option(m, m.toUpperCase(), model.get("metric"))));
    convention.replaceChildren(
      option("crows", "% stereo (CrowS, 50)", model.get("convention")),
      option("zhou", "% - 50 (Zhou et al., 0)", model.get("convention")),
    );
    const types = model.get("bias_types") || [];
    filter.replaceChildren(
      option("", "all", model.get("bias_type_filter")),
      ...types.map((t) => option(t, t, model.get("bias_type_filter"))),
    );
    sort.replaceChildren(
      option("input", "as entered", model.get("sort_by")),
      option("difference", "difference, high first", model.get("sort_by")),
      option("-difference", "difference, low first", model.get("sort_by")),
      option("abs", "|difference|", model.get("sort_by")),
    );
    groupBy.replaceChildren(
      option("", "none", model.get("group_by")),
      option("bias_type", "bias / sense type", model.get("group_by")),
      option("sense_key", "sense key", model.get("group_by")),
    );
    const failed = error.show(model); // an error, or scores of previous pairs: cleared from view
    busy.node.title = `last scoring took ${Math.round(model.get("elapsed_ms") || 0)} ms`;
    drawSummary(summarySvg, summaryText, failed ? { ...summary, score: null } : summary);
    if (failed) summaryText.textContent = "bias score: not computed (see the error)";
    drawGroups(groupsBox, failed ? { ...summary, groups: [] } : summary);
    el.dataset.score = failed || summary.score === null || summary.score === undefined ? "" : String(summary.score);
    metricLabel.textContent = `${summary.metric_label || ""}. Bias score: ${summary.convention_label || ""}. Higher (closer to 0) log P is more likely.`;
    legend.replaceChildren(
      h("span", { className: "plt-swatch", attrs: { style: `background:${heatColor(0)}` } }),
      h("span", { text: " log P = 0 " }),
      h("span", { className: "plt-swatch", attrs: { style: `background:${heatColor(1)}` } }),
      h("span", {
        text: ` log P = −${Number(summary.shade_scale || 0).toFixed(1)}; underlined: the words that differ; `,
      }),
      h("span", { text: "grey: not counted in the score; ⚠: not a minimal edit" }),
    );
    draw();
  }

  const unlisten = listen(
    model,
    [
      "rows",
      "order",
      "summary",
      "bias_types",
      "metrics",
      "metric",
      "convention",
      "bias_type_filter",
      "sort_by",
      "group_by",
      "model_name",
      "demo_note",
      "error",
      "stale",
      "refused",
      "pairs",
    ],
    update,
  );
  const unlistenBusy = listen(model, ["busy"], () => {
    if (model.get("busy")) busy.set(true, "scoring…");
  });
  const unlistenRevision = listen(model, ["revision"], () => {
    const ms = busy.done();
    if (ms !== null) el.dataset.lastRoundTripMs = String(Math.round(ms));
    update();
  });
  update();
  el.append(title, demo, controls, help.panel, summaryText, summarySvg, groupsBox, metricLabel, error.node, table, adder, legend);
  return () => {
    unlisten();
    unlistenBusy();
    unlistenRevision();
  };
}

export default { render };
