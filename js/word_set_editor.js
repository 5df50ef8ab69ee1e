// WordSetEditor: the four sets of an association test side by side.
// The model trait "sets" (sent-bias layout) is the source of truth; this view
// only edits it. OOV flags, merged spellings, notes and errors come from Python.
// Shared chrome (toolbar, pickers, undo, help, busy, error) from lib/ui.js.
import "./word_set_editor.css";
import { h, listen, splitItems } from "./lib/dom.js";
import { downloadText, fileStem } from "./lib/export.js";
import { createHistory } from "./lib/history.js";
import { setColor } from "./lib/palette.js";
import { busyIndicator, button, errorState, group, helpButton, mountRoot, select, toolbar, watchWidth } from "./lib/ui.js";

const ROLES = { targ1: "Target X", targ2: "Target Y", attr1: "Attribute A", attr2: "Attribute B" };
const NARROW = 280; // px: below it the test picker lists the tests' names only (their titles show below it)

function cloneSets(model) {
  return JSON.parse(JSON.stringify(model.get("sets") || {}));
}

/** Items hidden behind a merged chip: {variant -> kept item} for one set. */
function variantsOf(model, key) {
  const out = new Map();
  for (const g of (model.get("merged") || {})[key] || []) for (const v of g.variants || []) out.set(v, g.item);
  return out;
}

function column(model, key, edit) {
  const chips = h("div", { className: "ewe-chips", dataset: { set: key } });
  // a textarea so that long category names show in full (it grows with its text)
  const category = h("textarea", {
    className: "ewe-category",
    rows: 1,
    dataset: { set: key },
    attrs: { "aria-label": `${ROLES[key]} category name`, spellcheck: "false" },
    title: "category name: Enter renames, Escape cancels",
  });
  let committed = "";
  const rename = () => {
    const name = category.value.replace(/\s+/g, " ").trim() || key;
    if (name === committed) return;
    edit((sets) => {
      sets[key].category = name;
    });
  };
  category.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      rename();
      category.blur();
    } else if (event.key === "Escape") {
      event.preventDefault();
      category.value = committed;
      category.blur();
    }
  });
  category.addEventListener("blur", rename);

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
    adder.value = "";
    edit((sets) => {
      sets[key].examples = [...sets[key].examples, ...items];
    });
  };
  adder.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      addItems(adder.value);
    } else if (event.key === "Escape") {
      adder.value = "";
    }
  });
  adder.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text") ?? "";
    if (/[\n,;\t]/.test(text)) {
      event.preventDefault();
      addItems(adder.value + text);
    }
  });

  function update() {
    const set = (model.get("sets") || {})[key] || { category: key, examples: [] };
    committed = set.category;
    if (document.activeElement !== category) category.value = set.category;
    const oov = new Map(((model.get("oov") || {})[key] || []).map((o) => [o.item, o.suggestions]));
    const hidden = variantsOf(model, key);
    const groups = new Map();
    for (const [variant, kept] of hidden) groups.set(kept, [...(groups.get(kept) || []), variant]);
    chips.replaceChildren(
      ...set.examples.flatMap((word, index) => {
        if (hidden.has(word) && set.examples.includes(hidden.get(word))) return [];
        const suggestions = oov.get(word);
        const variants = groups.get(word) || [];
        let cls = "ewe-chip";
        if (suggestions) cls += " ewe-oov";
        if (variants.length) cls += " ewe-merged";
        let title = word;
        if (suggestions) title = `not in the model's vocabulary${suggestions.length ? `; try: ${suggestions.join(", ")}` : ""}`;
        if (variants.length) title = `${word} = ${variants.join(" = ")}: the model maps these to one vector, counted once`;
        const remove = () =>
          edit((sets) => {
            const drop = new Set([word, ...variants]);
            sets[key].examples = sets[key].examples.filter((w, i) => i !== index && !drop.has(w));
          });
        return [
          h(
            "span",
            { className: cls, dataset: { word, variants: variants.join("|") }, title },
            h("span", { className: "ewe-word", text: word }),
            variants.length ? h("span", { className: "ewe-variant", text: `= ${variants.join(" = ")}` }) : null,
            suggestions
              ? suggestions.map((sugg) =>
                  h("button", {
                    className: "ewe-suggest",
                    text: sugg,
                    title: `replace ${word} with ${sugg}`,
                    attrs: { type: "button" },
                    on: {
                      click: () =>
                        edit((sets) => {
                          sets[key].examples[index] = sugg;
                        }),
                    },
                  }),
                )
              : null,
            h("button", {
              className: "ewe-remove",
              text: "×",
              title: `remove ${word}`,
              attrs: { "aria-label": `remove ${word}`, type: "button" },
              on: { click: remove },
            }),
          ),
        ];
      }),
    );
  }

  const node = h(
    "div",
    { className: "ewe-column", dataset: { set: key }, style: `--ewe-color: ${setColor(key)}` },
    h("div", { className: "ewe-role", text: ROLES[key] }),
    category,
    chips,
    adder,
  );
  node.style.setProperty("--ewe-color", setColor(key));
  return { node, update };
}

function render({ model, el }) {
  mountRoot(el, "embias-word-set-editor");
  // one undo history per test: switching test and back (Python keeps each test's edited sets) undoes as before
  const histories = new Map();
  const historyOf = (name) => {
    if (!histories.has(name)) histories.set(name, createHistory(100));
    return histories.get(name);
  };
  let history = historyOf(model.get("test_name") || "");
  const busy = busyIndicator(el);
  const error = errorState(el);

  function commitSets(sets) {
    history.push(model.get("sets") || {});
    model.set("sets", sets);
    model.save_changes();
    if (model.get("live")) busy.pending();
    updateButtons();
  }
  /** Apply `change(sets)` to a copy of the sets and send it (one undoable edit). */
  function edit(change) {
    const sets = cloneSets(model);
    change(sets);
    commitSets(sets);
  }

  const columns = Object.keys(ROLES).map((key) => column(model, key, edit));
  const notes = h("ul", { className: "embias-notes ewe-notes" });

  const undo = button("Undo", () => {
    if (!history.canUndo()) return;
    model.set("sets", history.undo());
    model.save_changes();
    if (model.get("live")) busy.pending();
    updateButtons();
  }, { className: "ewe-undo", title: "undo the last edit" });
  const reset = button("Reset", () => commitSets(JSON.parse(JSON.stringify(model.get("published")))), {
    className: "ewe-reset",
    title: "restore the published sets of this test",
  });
  const pick = (trait) => (value) => {
    model.set(trait, value);
    model.save_changes();
    busy.pending();
  };
  const testPicker = select("test", [], "", pick("test_name"), { className: "ewe-test-picker", title: "choose a bundled test" });
  const modelPicker = select("model", [], "", pick("model_name"), { className: "ewe-model-picker", title: "choose a model" });
  const help = helpButton(["d", "p", "significance", "sw", "small_sets"]);
  // the dropdown shows short labels ("weat7 · math/arts × male/female terms"); the chosen test's full title wraps below it
  const testTitle = h("div", { className: "ewe-test-title", attrs: { "aria-live": "polite" } });
  const bar = toolbar(testPicker.label, modelPicker.label, group(undo, reset), busy.node, h("span", { className: "embias-spacer" }), help.button);

  const importBox = h("textarea", {
    className: "ewe-import-text",
    placeholder: '{"targ1": {"category": ..., "examples": [...]}, ...}',
    rows: 4,
    attrs: { "aria-label": "test to import (sent-bias JSON)" },
  });
  const importButton = button("Import JSON", () => {
    history.push(model.get("sets") || {});
    model.set("import_text", importBox.value);
    model.save_changes();
    updateButtons();
  }, { className: "ewe-import" });
  const exportBox = h("textarea", { className: "ewe-export-text", readOnly: true, rows: 4, attrs: { "aria-label": "the sets as JSON" } });
  const exportButton = button("Download JSON", () => {
    downloadText(model.get("export_text"), `${fileStem(model.get("name") || "test")}.json`, "application/json");
  }, { className: "ewe-export" });
  const io = h(
    "details",
    { className: "ewe-io" },
    h("summary", { text: "Import / export JSON (sent-bias test format)" }),
    h("div", { className: "ewe-io-row" }, importBox, importButton),
    h("div", { className: "ewe-io-row" }, exportBox, exportButton),
  );

  function updateButtons() {
    undo.disabled = !history.canUndo();
    reset.disabled = !Object.keys(model.get("published") || {}).length;
  }

  function update() {
    for (const c of columns) c.update();
    notes.replaceChildren(...(model.get("notes") || []).map((n) => h("li", { text: n })));
    error.show(model);
    exportBox.value = model.get("export_text") || "";
    if (model.get("import_text") === "" && document.activeElement !== importBox) importBox.value = "";
    const tests = model.get("test_choices") || [];
    // narrower than a label ("sent-weat6 · male/female × career/family"): the names alone, the title below
    const shown = narrow ? tests.map(([name]) => [name, name]) : tests;
    testPicker.setOptions(model.get("test_name") ? shown : [["", "(custom sets)"], ...shown], model.get("test_name") || "");
    testPicker.label.hidden = tests.length === 0;
    const chosen = tests.find((c) => c[0] === model.get("test_name"));
    testTitle.textContent = chosen ? chosen[2] || chosen[1] : "";
    testTitle.hidden = !chosen;
    testPicker.node.title = chosen ? chosen[2] || chosen[1] : "choose a bundled test";
    const models = model.get("model_choices") || [];
    modelPicker.setOptions(models, model.get("model_name") || "");
    modelPicker.label.hidden = models.length === 0;
    updateButtons();
  }
  function onResult() {
    const ms = busy.done();
    if (ms !== null) el.dataset.lastRoundTripMs = String(Math.round(ms));
    busy.set(Boolean(model.get("busy")));
  }
  const unlisten = listen(
    model,
    ["sets", "oov", "merged", "notes", "error", "refused", "stale", "export_text", "import_text", "test_choices", "test_name", "model_choices", "model_name", "published"],
    update,
  );
  const unlistenBusy = listen(model, ["busy"], () => {
    if (model.get("busy")) busy.set(true);
  });
  const unlistenRevision = listen(model, ["revision"], onResult);
  const unlistenTest = listen(model, ["test_name"], () => {
    history = historyOf(model.get("test_name") || "");
    updateButtons();
  });
  let narrow = false;
  update();
  const unwatch = watchWidth(el, (w) => {
    if ((w < NARROW) !== narrow) {
      narrow = w < NARROW;
      update();
    }
  }, { min: 0, max: 4000 });
  el.append(bar, testTitle, help.panel, h("div", { className: "ewe-grid" }, columns.map((c) => c.node)), error.node, notes, io);
  return () => {
    unlisten();
    unlistenBusy();
    unlistenRevision();
    unlistenTest();
    unwatch();
  };
}

export default { render };
