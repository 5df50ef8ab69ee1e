// RelationProjectionWidget: an editor for ordered pairs and word groups, and a
// live plot of the words along the relation axis. Python computes the relation
// vector, every RIPA score, the axis domain and its ticks; this view only maps
// numbers to pixels. User text reaches the page through textContent only.
import "./relation_projection.css";
import { h, listen, s, signed, splitItems } from "./lib/dom.js";
import { linear } from "./lib/scale.js";
import { mountRoot } from "./lib/ui.js";

const WIDTH = 640;
const MARGIN = { left: 130, right: 24, top: 26, bottom: 34 };
const ROW = 46;
const PALETTE = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
const PAIR_COLORS = { "pairs: first": "#d62728", "pairs: second": "#ff7f0e" };

function clonePairs(model) {
  return (model.get("pairs") || []).map((p) => [String(p[0] ?? ""), String(p[1] ?? "")]);
}

function cloneGroups(model) {
  return JSON.parse(JSON.stringify(model.get("groups") || {}));
}

function commit(model, name, value) {
  model.set(name, value);
  model.save_changes();
}

// -- pairs editor ------------------------------------------------------------
function pairsEditor(model) {
  const rows = h("div", { className: "erp-pair-rows" });
  const add = h("button", {
    className: "erp-add-pair",
    text: "+ pair",
    title: "add an ordered pair (first, second)",
    on: { click: () => commit(model, "pairs", [...clonePairs(model), ["", ""]]) },
  });

  function wordInput(index, side) {
    const input = h("input", {
      type: "text",
      className: `erp-pair-word erp-pair-${side === 0 ? "first" : "second"}`,
      placeholder: side === 0 ? "first" : "second",
      dataset: { pair: index, side },
      attrs: { "aria-label": `pair ${index + 1}, ${side === 0 ? "first" : "second"} word` },
    });
    // commit on Enter or when the box loses focus (not on every keystroke)
    input.addEventListener("change", () => {
      const pairs = clonePairs(model);
      if (!pairs[index]) return;
      pairs[index][side] = input.value.trim();
      commit(model, "pairs", pairs);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") input.blur();
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
            h("button", {
              className: "erp-remove-pair",
              text: "×",
              title: "remove this pair",
              attrs: { "aria-label": `remove pair ${index + 1}` },
              on: {
                click: () => {
                  const next = clonePairs(model);
                  next.splice(index, 1);
                  commit(model, "pairs", next);
                },
              },
            }),
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
function groupsEditor(model) {
  const node = h("div", { className: "erp-groups" });

  function groupRow(group, words, oov, color) {
    const adder = h("input", {
      type: "text",
      className: "erp-add-word",
      placeholder: "add words (Enter; paste a list)",
      dataset: { group },
      attrs: { "aria-label": `add words to ${group}` },
    });
    const addWords = (text) => {
      const items = splitItems(text);
      if (items.length === 0) return;
      const groups = cloneGroups(model);
      groups[group] = [...(groups[group] || []), ...items];
      adder.value = "";
      commit(model, "groups", groups);
    };
    adder.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        addWords(adder.value);
      }
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
        h("button", {
          className: "erp-remove-word",
          text: "×",
          title: `remove ${word}`,
          attrs: { "aria-label": `remove ${word}` },
          on: {
            click: () => {
              const groups = cloneGroups(model);
              groups[group].splice(index, 1);
              commit(model, "groups", groups);
            },
          },
        }),
      );
    });
    return h(
      "div",
      { className: "erp-group", dataset: { group } },
      h("span", { className: "erp-group-name", text: group, style: `border-color: ${color}` }),
      h("div", { className: "erp-chips" }, chips, adder),
    );
  }

  function update(colors) {
    const focused = document.activeElement;
    const refocus = focused?.classList?.contains("erp-add-word") ? focused.dataset.group : null;
    const oov = new Map((model.get("oov") || []).map((o) => [o.item, o.suggestions || []]));
    const groups = model.get("groups") || {};
    node.replaceChildren(
      h("div", { className: "erp-heading", text: "Words to place on the axis" }),
      ...Object.entries(groups).map(([g, words]) => groupRow(g, words, oov, colors.get(g) || "#888")),
    );
    if (refocus !== null) node.querySelector(`.erp-add-word[data-group="${CSS.escape(refocus)}"]`)?.focus();
  }
  return { node, update };
}

// -- the plot ------------------------------------------------------------------
function drawPlot(svg, points, domain, ticks, axisLabel, colors) {
  const order = [...new Set(points.map((p) => p.group))];
  const height = MARGIN.top + Math.max(1, order.length) * ROW + MARGIN.bottom;
  svg.setAttribute("height", String(height));
  svg.replaceChildren();
  if (!domain || domain.length !== 2 || points.length === 0) return;
  const x = linear(domain, [MARGIN.left, WIDTH - MARGIN.right]);
  const axisY = height - MARGIN.bottom;
  for (const t of ticks || []) {
    svg.append(
      s("line", { x1: x(t), x2: x(t), y1: MARGIN.top - 8, y2: axisY, class: t === 0 ? "erp-zero" : "erp-grid" }),
      s("text", { x: x(t), y: axisY + 14, "text-anchor": "middle", class: "erp-tick" }, String(t)),
    );
  }
  svg.append(s("text", { x: (MARGIN.left + WIDTH - MARGIN.right) / 2, y: height - 4, "text-anchor": "middle", class: "erp-axis-label" }, axisLabel));
  order.forEach((group, row) => {
    const y = MARGIN.top + row * ROW + ROW / 2;
    svg.append(s("text", { x: MARGIN.left - 8, y: y + 4, "text-anchor": "end", class: "erp-row-label" }, group));
    // labels alternate above/below in order along the axis, so neighbours do not collide
    const members = points.filter((p) => p.group === group).sort((a, b) => a.ripa - b.ripa);
    members.forEach((p, i) => {
      const cx = x(p.ripa);
      const dot = s("circle", {
        cx: cx.toFixed(2),
        cy: y,
        r: 5,
        fill: colors.get(group) || "#888",
        class: "erp-point",
        "data-word": p.word,
        "data-group": group,
        "data-ripa": String(p.ripa),
      });
      dot.append(s("title", {}, `${p.word} (${group}): RIPA ${signed(p.ripa, 3)}`));
      const labelY = i % 2 === 0 ? y - 9 : y + 17;
      svg.append(dot, s("text", { x: cx.toFixed(2), y: labelY, "text-anchor": "middle", class: "erp-label" }, p.word));
    });
  });
}

function colorMap(model) {
  const colors = new Map(Object.entries(PAIR_COLORS));
  Object.keys(model.get("groups") || {}).forEach((g, i) => {
    if (!colors.has(g)) colors.set(g, PALETTE[i % PALETTE.length]);
  });
  return colors;
}

function render({ model, el }) {
  mountRoot(el, "embias-relation-projection");
  const pairs = pairsEditor(model);
  const groups = groupsEditor(model);
  const summary = h("div", { className: "erp-summary" });
  const error = h("div", { className: "erp-error", attrs: { role: "alert" } });
  const notes = h("ul", { className: "erp-notes" });
  const svg = s("svg", { width: WIDTH, height: 80, class: "erp-plot" });

  function update() {
    const colors = colorMap(model);
    pairs.update();
    groups.update(colors);
    summary.textContent = model.get("summary") || "";
    error.textContent = model.get("error") || "";
    error.hidden = !model.get("error");
    notes.replaceChildren(...(model.get("notes") || []).map((n) => h("li", { text: n })));
    const points = model.get("points") || [];
    drawPlot(svg, points, model.get("domain"), model.get("ticks"), model.get("axis_label") || "", colors);
    el.dataset.points = String(points.length);
    el.dataset.revision = String(model.get("revision") ?? 0);
  }
  const unlisten = listen(
    model,
    ["pairs", "groups", "points", "domain", "ticks", "axis_label", "summary", "oov", "notes", "error", "revision"],
    update,
  );
  update();
  el.append(h("div", { className: "erp-editors" }, pairs.node, groups.node), summary, error, svg, notes);
  return unlisten;
}

export default { render };
