// RelationProjectionWidget: an editor for ordered pairs and word groups, and a
// live plot of the words along the relation axis. Python computes the relation
// vector and every RIPA score; this view fits the axis (kept across edits unless
// the user fits it: drawing geometry, lib/scale.js), maps numbers to pixels and places
// labels so they do not collide. User text reaches the page through textContent only.
import "./relation_projection.css";
import { h, listen, s, splitItems } from "./lib/dom.js";
import { exportButtons, fileStem, toCSV } from "./lib/export.js";
import { formatInterval, formatValue } from "./lib/format.js";
import { hasInterval, ripaFigure } from "./lib/ripa_figure.js";
import { createHistory } from "./lib/history.js";
import { estimateWidth, placeLabels } from "./lib/labels.js";
import { colorName, groupColors } from "./lib/palette.js";
import { keptAxis, linear, tickLabel } from "./lib/scale.js";
import { busyIndicator, button, errorState, group, helpButton, mountRoot, toolbar, watchWidth } from "./lib/ui.js";
import { wrapWords } from "./lib/wrap.js";

let WIDTH = 680; // the drawing width: set from the root's width (watchWidth) before each draw
const MARGIN = { left: 130, right: 24, top: 34, bottom: 40 };
const ROW = 74;
const LANES = 4; // label lanes: 0 above the dot, 1 below, 2 further above, 3 further below
const LANE_DY = [-9, 17, -22, 30];
const LABEL_FONT = 11; // px, as .erp-label: the exported figure keeps labels >= 11 px (lib/figure_frame.js)

function clonePairs(model) {
  return (model.get("pairs") || []).map((p) => [String(p[0] ?? ""), String(p[1] ?? "")]);
}

function cloneGroups(model) {
  return JSON.parse(JSON.stringify(model.get("groups") || {}));
}

// -- pairs editor ------------------------------------------------------------
function pairsEditor(model, commit) {
  const rows = h("div", { className: "erp-pair-rows" });
  const add = button("+ pair", () => commit("pairs", [...clonePairs(model), ["", ""]]), {
    className: "erp-add-pair",
    title: "add an ordered pair (first, second)",
  });

  function wordInput(index, side) {
    const input = h("input", {
      type: "text",
      className: `erp-pair-word erp-pair-${side === 0 ? "first" : "second"}`,
      placeholder: side === 0 ? "first" : "second",
      dataset: { pair: index, side },
      attrs: { "aria-label": `pair ${index + 1}, ${side === 0 ? "first" : "second"} word` },
      title: "Enter applies, Escape cancels",
    });
    const save = () => {
      const pairs = clonePairs(model);
      if (!pairs[index] || pairs[index][side] === input.value.trim()) return;
      pairs[index][side] = input.value.trim();
      commit("pairs", pairs);
    };
    input.addEventListener("change", save);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        save();
        input.blur();
      } else if (event.key === "Escape") {
        input.value = clonePairs(model)[index]?.[side] ?? "";
        input.blur();
      }
    });
    return input;
  }

  function update() {
    const pairs = clonePairs(model);
    const oov = new Set((model.get("oov") || []).map((o) => o.item));
    // keep the boxes the user is typing in; rebuild only when the count changes
    if (rows.children.length !== pairs.length) {
      rows.replaceChildren(
        ...pairs.map((_, index) =>
          h(
            "div",
            { className: "erp-pair", dataset: { pair: index } },
            wordInput(index, 0),
            h("span", { className: "erp-minus", text: "−" }),
            wordInput(index, 1),
            button("×", () => {
              const next = clonePairs(model);
              next.splice(index, 1);
              commit("pairs", next);
            }, { className: "erp-remove-pair", title: "remove this pair", ariaLabel: `remove pair ${index + 1}` }),
          ),
        ),
      );
    }
    pairs.forEach((pair, index) => {
      for (const side of [0, 1]) {
        const input = rows.children[index].children[side * 2];
        if (document.activeElement !== input) input.value = pair[side];
        input.classList.toggle("erp-oov", oov.has(pair[side]));
      }
    });
  }

  const node = h(
    "div",
    { className: "erp-pairs" },
    h("div", { className: "erp-heading", text: "Ordered pairs (b points to the first words)" }),
    rows,
    add,
  );
  return { node, update };
}

// -- word groups editor ------------------------------------------------------------
function groupsEditor(model, commit) {
  const node = h("div", { className: "erp-groups" });

  function groupRow(name, words, oov, color) {
    const adder = h("input", {
      type: "text",
      className: "erp-add-word",
      placeholder: "add words (Enter)",
      title: "type a word and press Enter, or paste a list of words",
      dataset: { group: name },
      attrs: { "aria-label": `add words to ${name}` },
    });
    const addWords = (text) => {
      const items = splitItems(text);
      if (items.length === 0) return;
      const groups = cloneGroups(model);
      groups[name] = [...(groups[name] || []), ...items];
      adder.value = "";
      commit("groups", groups);
    };
    adder.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        addWords(adder.value);
      } else if (event.key === "Escape") adder.value = "";
    });
    const chips = words.map((word, index) => {
      const suggestions = oov.get(word);
      return h(
        "span",
        {
          className: suggestions ? "erp-chip erp-oov" : "erp-chip",
          dataset: { word },
          title: suggestions
            ? `not in the model's vocabulary${suggestions.length ? `; try: ${suggestions.join(", ")}` : ""}`
            : word,
        },
        h("span", { className: "erp-word", text: word }),
        button("×", () => {
          const groups = cloneGroups(model);
          groups[name].splice(index, 1);
          commit("groups", groups);
        }, { className: "erp-remove-word", title: `remove ${word}`, ariaLabel: `remove ${word}` }),
        // close matches for a word not in the vocabulary: click one to use it instead
        ...(suggestions || []).map((alt) => button(alt, () => {
          const groups = cloneGroups(model);
          groups[name].splice(index, 1, alt);
          commit("groups", groups);
        }, { className: "erp-suggest", title: `use ${alt} instead of ${word}`, ariaLabel: `use ${alt} instead of ${word}` })),
      );
    });
    const label = h("span", { className: "erp-group-name", text: name });
    label.style.borderColor = color;
    return h("div", { className: "erp-group", dataset: { group: name } }, label, h("div", { className: "erp-chips" }, chips, adder));
  }

  function update(colors) {
    const focused = document.activeElement;
    const refocus = focused?.classList?.contains("erp-add-word") ? focused.dataset.group : null;
    const oov = new Map((model.get("oov") || []).map((o) => [o.item, o.suggestions || []]));
    const groups = model.get("groups") || {};
    node.replaceChildren(
      h("div", { className: "erp-heading", text: "Words to place on the axis" }),
      ...Object.entries(groups).map(([g, words]) => groupRow(g, words, oov, colors.get(g))),
    );
    if (refocus !== null) node.querySelector(`.erp-add-word[data-group="${CSS.escape(refocus)}"]`)?.focus();
  }
  return { node, update };
}

// -- the plot ------------------------------------------------------------------
// a point's RIPA interval over the relation pairs (both bounds finite), and every value the axis must hold
const axisValues = (points) => points.flatMap((p) => (hasInterval(p) ? [p.ripa, p.low, p.high] : [p.ripa]));

function drawPlot(svg, points, domain, ticks, axisLabel, colors) {
  const order = [...new Set(points.map((p) => p.group))];
  const axisLines = wrapWords(axisLabel, WIDTH - 8); // a narrow plot wraps its axis label at words
  const height = MARGIN.top + Math.max(1, order.length) * ROW + MARGIN.bottom + (axisLines.length - 1) * 13;
  svg.setAttribute("height", String(height));
  svg.replaceChildren();
  if (!domain || domain.length !== 2 || points.length === 0) {
    svg.setAttribute("height", "4");
    return;
  }
  const x = linear(domain, [MARGIN.left, WIDTH - MARGIN.right]);
  const axisY = height - MARGIN.bottom - (axisLines.length - 1) * 13;
  for (const t of ticks || []) {
    svg.append(
      s("line", { x1: x(t), x2: x(t), y1: MARGIN.top - 12, y2: axisY, class: t === 0 ? "erp-zero" : "erp-grid" }),
      s("text", { x: x(t), y: axisY + 14, "text-anchor": "middle", class: "erp-tick" }, tickLabel(t)),
    );
  }
  const centred = axisLines.length > 1 || estimateWidth(axisLines[0], 11) > WIDTH - MARGIN.left - MARGIN.right;
  const labelX = centred ? WIDTH / 2 : (MARGIN.left + WIDTH - MARGIN.right) / 2;
  const axisText = s("text", { x: labelX, y: axisY + 34, "text-anchor": "middle", class: "erp-axis-label" });
  axisText.append(...axisLines.map((line, i) => s("tspan", { x: labelX, dy: i ? 13 : 0 }, line)));
  svg.append(axisText);
  const hover = s("text", { class: "erp-hover-label", "text-anchor": "middle", visibility: "hidden" });
  order.forEach((group, row) => {
    const y = MARGIN.top + row * ROW + ROW / 2;
    svg.append(s("text", { x: MARGIN.left - 10, y: y + 4, "text-anchor": "end", class: "erp-row-label" }, group));
    const members = points.filter((p) => p.group === group);
    // Python chose which words get a label (at most top-k per group by |RIPA|, label_lane); the others show
    // on hover. Lanes are placed here again because pixels, not data units, decide what collides.
    const labelled = members.map((p) => p.label_lane === undefined || p.label_lane !== null);
    const slots = placeLabels(
      members.filter((p, i) => labelled[i]).map((p) => ({ x: x(p.ripa), width: estimateWidth(p.word, LABEL_FONT) })),
      { lanes: LANES, gap: 3 },
    );
    let next = 0;
    const placed = labelled.map((on) => (on ? slots[next++] : { lane: -1, shown: false }));
    members.forEach((p, i) => {
      const cx = x(p.ripa);
      const { lane, shown } = placed[i];
      if (hasInterval(p)) svg.append(s("line", { x1: x(p.low).toFixed(2), x2: x(p.high).toFixed(2), y1: y, y2: y, class: "erp-whisker", "data-word": p.word, "data-low": String(p.low), "data-high": String(p.high) }));
      const dot = s("circle", {
        cx: cx.toFixed(2),
        cy: y,
        r: 5,
        fill: colors.get(group),
        class: "erp-point",
        "data-word": p.word,
        "data-group": group,
        "data-ripa": String(p.ripa),
        "data-label-lane": String(lane),
      });
      const range = hasInterval(p) ? ` ${formatInterval(p, "effect")}` : "";
      dot.append(s("title", {}, `${p.word} (${group}): RIPA ${formatValue(p.ripa, "effect")}${range}`));
      dot.addEventListener("mouseenter", () => {
        hover.textContent = `${p.word}  ${formatValue(p.ripa, "effect")}`;
        hover.setAttribute("x", cx.toFixed(2));
        hover.setAttribute("y", String(y - 30));
        hover.setAttribute("visibility", "visible");
      });
      dot.addEventListener("mouseleave", () => hover.setAttribute("visibility", "hidden"));
      if (shown) {
        const ly = y + LANE_DY[lane];
        if (lane >= 2) {
          svg.append(s("line", { x1: cx, x2: cx, y1: y + (lane === 2 ? -6 : 6), y2: ly + (lane === 2 ? 2 : -9), class: "erp-leader" }));
        }
        const half = estimateWidth(p.word, LABEL_FONT) / 2; // a label near an end stays inside the plot
        const lx = Math.max(half + 2, Math.min(WIDTH - half - 2, cx));
        svg.append(s("text", { x: lx.toFixed(2), y: ly, "text-anchor": "middle", class: "erp-label", "data-word": p.word }, p.word));
      }
      svg.append(dot);
    });
  });
  svg.append(hover);
}

/** "crimson and grey dots: the pairs' own first and second words": the colour names the palette draws
 * (palette.json "names"), the same words as the notebook's text. */
function pairWords(colors) {
  return `${colorName(colors.get("pairs: first"))} and ${colorName(colors.get("pairs: second"))} dots: the pairs' own first and second words`;
}

function colorMap(model) {
  return groupColors(["pairs: first", "pairs: second", ...Object.keys(model.get("groups") || {})]);
}

function render({ model, el }) {
  mountRoot(el, "embias-relation-projection");
  const history = createHistory(100);
  const busy = busyIndicator(el);
  const error = errorState(el);

  function commit(name, value) {
    history.push({ pairs: model.get("pairs"), groups: model.get("groups") });
    model.set(name, value);
    model.save_changes();
    busy.pending();
    undo.disabled = false;
  }
  const undo = button("Undo", () => {
    const last = history.undo();
    if (!last) return;
    model.set("pairs", last.pairs);
    model.set("groups", last.groups);
    model.save_changes();
    busy.pending();
    undo.disabled = !history.canUndo();
  }, { className: "erp-undo", title: "undo the last edit" });
  undo.disabled = true;

  const pairs = pairsEditor(model, commit);
  const groups = groupsEditor(model, commit);
  const summary = h("div", { className: "erp-summary" });
  const notes = h("ul", { className: "embias-notes erp-notes" });
  const legend = h("div", { className: "embias-legend erp-legend" });
  const svg = s("svg", { width: WIDTH, height: 80, class: "erp-plot", role: "img" });

  let axis = null; // {domain, ticks}: kept across edits while "keep axis" is checked
  const keep = h("input", { type: "checkbox", className: "erp-keep-axis", checked: model.get("keep_axis") });
  keep.addEventListener("change", () => {
    model.set("keep_axis", keep.checked);
    model.save_changes();
    if (!keep.checked) axis = null;
    update();
  });
  const fit = button("Fit axis", () => {
    axis = null;
    update();
  }, { className: "erp-fit", title: "fit the axis range to the points now" });
  const exportsNode = exportButtons({
    stem: () => fileStem("ripa", model.get("model_name") || "model"),
    figure: () => ripaFigure(model, colorMap(model), pairWords(colorMap(model))),
    csv: () => toCSV(["model", "group", "word", "ripa", "ripa_low", "ripa_high"],
      (model.get("points") || []).map((p) => [model.get("model_name"), p.group, p.word, p.ripa, p.low ?? "", p.high ?? ""])),
    svgs: () => [svg],
  });
  const help = helpButton(["ripa"]);
  const bar = toolbar(
    h("label", { className: "embias-check", title: "keep the axis range across edits (it grows to fit new points)" }, keep, "keep axis"),
    group(fit, undo),
    exportsNode,
    busy.node,
    h("span", { className: "embias-spacer" }),
    help.button,
  );

  let width = 680;
  function update() {
    WIDTH = width;
    MARGIN.left = Math.min(130, Math.max(90, Math.round(width * 0.2)));
    svg.setAttribute("width", String(width));
    const colors = colorMap(model);
    pairs.update();
    groups.update(colors);
    keep.checked = Boolean(model.get("keep_axis"));
    const failed = error.show(model); // an error, or numbers of a previous input: cleared from view
    summary.textContent = failed ? "RIPA: not computed (see the error)" : model.get("summary") || "";
    notes.replaceChildren(...(model.get("notes") || []).map((n) => h("li", { text: n })));
    const points = failed ? [] : model.get("points") || [];
    const shownGroups = [...new Set(points.map((p) => p.group))];
    legend.replaceChildren(
      h("span", { text: "Rows:" }),
      ...shownGroups.map((g) => {
        const sw = h("span", { className: "embias-swatch" });
        sw.style.background = colors.get(g);
        return h("span", { className: "erp-legend-item" }, sw, g);
      }),
      h("span", { className: "erp-legend-pairs", text: pairWords(colors) }),
      h("span", { text: "x: RIPA(w) = ⟨w, b⟩; hover a dot for its value" }),
      points.some(hasInterval)
        ? h("span", { className: "erp-legend-whisker", text: "line through a dot: its 95% bias-corrected bootstrap interval over the relation pairs (b recomputed each time)" })
        : null,
    );
    legend.hidden = points.length === 0;
    if (points.length) axis = keptAxis(axisValues(points), axis, { keep: Boolean(model.get("keep_axis")) });
    const domain = points.length ? axis.domain : null;
    drawPlot(svg, points, domain, axis?.ticks ?? [], model.get("axis_label") || "", colors);
    el.dataset.points = String(points.length);
    el.dataset.domain = (domain || []).join(",");
  }
  const unlisten = listen(
    model,
    ["pairs", "groups", "points", "axis_label", "summary", "oov", "notes", "error", "stale", "refused", "keep_axis"],
    update,
  );
  const unlistenBusy = listen(model, ["busy"], () => busy.set(Boolean(model.get("busy"))));
  const unlistenRevision = listen(model, ["revision"], () => {
    update();
    const ms = busy.done();
    if (ms !== null) el.dataset.lastRoundTripMs = String(Math.round(ms));
    el.dataset.revision = String(model.get("revision") ?? 0);
  });
  update();
  const unwatch = watchWidth(el, (w) => {
    width = w;
    update();
  }, { min: 200, max: 680 });
  el.dataset.revision = String(model.get("revision") ?? 0);
  el.append(bar, help.panel, h("div", { className: "erp-editors" }, pairs.node, groups.node), summary, error.node, legend, svg, notes);
  return () => {
    unlisten();
    unlistenBusy();
    unlistenRevision();
    unwatch();
  };
}

export default { render };
