// WordSetEditor: the four sets of an association test side by side.
// The model trait "sets" (sent-bias layout) is the source of truth; this view
// only edits it. OOV flags, notes and errors come from Python.
import "./word_set_editor.css";
import { h, listen, splitItems } from "./lib/dom.js";
import { mountRoot } from "./lib/ui.js";

const ROLES = { targ1: "Target X", targ2: "Target Y", attr1: "Attribute A", attr2: "Attribute B" };

function cloneSets(model) {
  return JSON.parse(JSON.stringify(model.get("sets") || {}));
}

function commit(model, sets) {
  model.set("sets", sets);
  model.save_changes();
}

function column(model, key) {
  const chips = h("div", { className: "ewe-chips", dataset: { set: key } });
  const category = h("input", {
    type: "text",
    className: "ewe-category",
    dataset: { set: key },
    attrs: { "aria-label": `${ROLES[key]} category name` },
    on: {
      change: () => {
        const sets = cloneSets(model);
        sets[key].category = category.value.trim() || key;
        commit(model, sets);
      },
    },
  });
  const adder = h("input", {
    type: "text",
    className: "ewe-add",
    placeholder: "add words (Enter; paste a list)",
    dataset: { set: key },
    attrs: { "aria-label": `add items to ${ROLES[key]}` },
  });
  const addItems = (text) => {
    const items = splitItems(text);
    if (items.length === 0) return;
    const sets = cloneSets(model);
    sets[key].examples = [...sets[key].examples, ...items];
    adder.value = "";
    commit(model, sets);
  };
  adder.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      addItems(adder.value);
    }
  });
  adder.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text") ?? "";
    if (/[\n,;\t]/.test(text)) {
      event.preventDefault();
      addItems(adder.value + text);
    }
  });

  function remove(index) {
    const sets = cloneSets(model);
    sets[key].examples.splice(index, 1);
    commit(model, sets);
  }
  function replace(index, word) {
    const sets = cloneSets(model);
    sets[key].examples[index] = word;
    commit(model, sets);
  }

  function update() {
    const set = (model.get("sets") || {})[key] || { category: key, examples: [] };
    if (document.activeElement !== category) category.value = set.category;
    const oov = new Map(((model.get("oov") || {})[key] || []).map((o) => [o.item, o.suggestions]));
    chips.replaceChildren(
      ...set.examples.map((word, index) => {
        const suggestions = oov.get(word);
        const chip = h(
          "span",
          {
            className: suggestions ? "ewe-chip ewe-oov" : "ewe-chip",
            dataset: { word },
            title: suggestions
              ? `not in the model's vocabulary${suggestions.length ? `; try: ${suggestions.join(", ")}` : ""}`
              : word,
          },
          h("span", { className: "ewe-word", text: word }),
          suggestions
            ? suggestions.map((sugg) =>
                h("button", {
                  className: "ewe-suggest",
                  text: sugg,
                  title: `replace ${word} with ${sugg}`,
                  on: { click: () => replace(index, sugg) },
                }),
              )
            : null,
          h("button", {
            className: "ewe-remove",
            text: "×",
            title: `remove ${word}`,
            attrs: { "aria-label": `remove ${word}` },
            on: { click: () => remove(index) },
          }),
        );
        return chip;
      }),
    );
  }

  const node = h(
    "div",
    { className: "ewe-column", dataset: { set: key } },
    h("div", { className: "ewe-role", text: ROLES[key] }),
    category,
    chips,
    adder,
  );
  return { node, update };
}

function render({ model, el }) {
  mountRoot(el, "embias-word-set-editor");
  const columns = Object.keys(ROLES).map((key) => column(model, key));
  const notes = h("ul", { className: "ewe-notes" });
  const error = h("div", { className: "ewe-error", attrs: { role: "alert" } });

  const importBox = h("textarea", {
    className: "ewe-import-text",
    placeholder: '{"targ1": {"category": ..., "examples": [...]}, ...}',
    rows: 4,
  });
  const importButton = h("button", {
    className: "ewe-import",
    text: "Import JSON",
    on: {
      click: () => {
        model.set("import_text", importBox.value);
        model.save_changes();
      },
    },
  });
  const exportBox = h("textarea", { className: "ewe-export-text", readOnly: true, rows: 4 });
  const exportButton = h("button", {
    className: "ewe-export",
    text: "Download JSON",
    on: {
      click: () => {
        const blob = new Blob([model.get("export_text")], { type: "application/json" });
        const a = h("a", { href: URL.createObjectURL(blob), download: `${model.get("name") || "test"}.jsonl` });
        a.click();
        URL.revokeObjectURL(a.href);
      },
    },
  });
  const io = h(
    "details",
    { className: "ewe-io" },
    h("summary", { text: "Import / export (sent-bias .jsonl format)" }),
    h("div", { className: "ewe-io-row" }, importBox, importButton),
    h("div", { className: "ewe-io-row" }, exportBox, exportButton),
  );

  function update() {
    for (const c of columns) c.update();
    notes.replaceChildren(...(model.get("notes") || []).map((n) => h("li", { text: n })));
    error.textContent = model.get("error") || "";
    error.hidden = !model.get("error");
    exportBox.value = model.get("export_text") || "";
    if (model.get("import_text") === "" && document.activeElement !== importBox) importBox.value = "";
  }
  const unlisten = listen(model, ["sets", "oov", "notes", "error", "export_text", "import_text"], update);
  update();
  el.append(h("div", { className: "ewe-grid" }, columns.map((c) => c.node)), error, notes, io);
  return unlisten;
}

export default { render };
