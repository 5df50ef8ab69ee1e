// SenseSelector: type a lemma, see its WordNet senses, pick one or more.
// The view sends only what the user typed (`query`, `pos`) and picked
// (`selected`); Python looks the lemma up and answers in `senses` /
// `suggestions`, naming the query it answers in `answered`. Glosses, examples
// and keys are data: they reach the page only through textContent.
import "./sense_selector.css";
import { h, listen } from "./lib/dom.js";
import { errorState, helpButton, mountRoot } from "./lib/ui.js";
import { debounce, moveActive, optionItems, toggled } from "./lib/senses.js";

const POS_OPTIONS = [
  ["", "any"],
  ["n", "noun"],
  ["v", "verb"],
  ["a", "adjective"],
  ["r", "adverb"],
];

let counter = 0;

function send(model, name, value) {
  model.set(name, value);
  model.save_changes();
}

function optionNode(row, id, isSelected, isActive) {
  const node = h("li", {
    className: "ess-option",
    id,
    dataset: { item: row.item, kind: row.sense ? "sense" : "lemma" },
    attrs: { role: "option", "aria-selected": String(isSelected) },
  });
  if (isActive) node.classList.add("ess-active");
  if (isSelected) node.classList.add("ess-selected");
  if (!row.sense) {
    node.append(
      h("div", { className: "ess-head" }, h("span", { className: "ess-lemma", text: row.item }), " ",
        h("span", { className: "ess-pos", text: `any sense (max over ${row.count} senses)` })),
    );
    return node;
  }
  const sense = row.sense;
  node.append(
    h(
      "div",
      { className: "ess-head" },
      h("span", { className: "ess-lemma", text: `${sense.lemma} ${sense.sense_number}` }),
      h("span", { className: "ess-pos", text: sense.pos_name }),
      h("span", { className: "ess-lexname", text: sense.lexname }),
      h("code", { className: "ess-key", text: sense.key }),
    ),
    h("div", { className: "ess-gloss", text: sense.gloss }),
  );
  if (sense.example) node.append(h("div", { className: "ess-example", text: `“${sense.example}”` }));
  if (sense.synonyms && sense.synonyms.length) {
    node.append(h("div", { className: "ess-synonyms", text: `also: ${sense.synonyms.join(", ")}` }));
  }
  return node;
}

function render({ model, el }) {
  mountRoot(el, "embias-sense-selector");
  const uid = `ess-${++counter}`;
  let active = -1;
  let rows = [];

  const label = h("div", { className: "ess-label" });
  const chips = h("div", { className: "ess-chips", attrs: { "aria-label": "selected senses" } });
  const input = h("input", {
    type: "text",
    className: "ess-input",
    placeholder: "type a lemma (nurse) or a sense key",
    attrs: {
      role: "combobox",
      "aria-autocomplete": "list",
      "aria-controls": `${uid}-list`,
      "aria-expanded": "false",
      "aria-label": "lemma to look up in WordNet",
      autocomplete: "off",
      spellcheck: "false",
    },
  });
  const pos = h(
    "select",
    { className: "ess-pos-filter", title: "part of speech" },
    POS_OPTIONS.map(([value, text]) => h("option", { value, text })),
  );
  const status = h("div", { className: "ess-status", attrs: { "aria-live": "polite" } });
  const list = h("ul", { className: "ess-list", id: `${uid}-list`, attrs: { role: "listbox", "aria-multiselectable": "true" } });
  const errors = errorState(el);
  const help = helpButton(["sense_key", "lexname"], { title: "What is shown here?" });
  const importBox = h("textarea", { className: "ess-import-text", rows: 3, placeholder: '["nurse%1:18:00::", ...]' });
  const exportBox = h("textarea", { className: "ess-export-text", rows: 3, readOnly: true });
  const io = h(
    "details",
    { className: "ess-io" },
    h("summary", { text: "Import / export JSON" }),
    h("div", { className: "ess-io-row" }, importBox,
      h("button", { className: "ess-import", text: "Import", on: { click: () => send(model, "import_text", importBox.value) } })),
    h("div", { className: "ess-io-row" }, exportBox),
  );

  // Does the list answer what is in the input now (not an earlier keystroke)?
  const fresh = () => model.get("answered") === `${input.value}|${model.get("pos")}`;
  let pendingEnter = false; // Enter pressed before the answer came: apply it when it does

  function toggle(item) {
    send(model, "selected", toggled(model.get("selected") || [], item, model.get("multiple")));
  }

  function drawChips() {
    chips.replaceChildren(
      ...(model.get("chips") || []).map((chip) =>
        h(
          "span",
          { className: `ess-chip ess-chip-${chip.kind}`, dataset: { item: chip.item }, title: chip.gloss },
          h("span", { className: "ess-chip-lemma", text: chip.lemma }),
          h("span", { className: "ess-chip-gloss", text: chip.short_gloss }),
          chip.key ? h("code", { className: "ess-chip-key", text: chip.key }) : null,
          h("button", {
            className: "ess-remove",
            text: "×",
            title: `remove ${chip.item}`,
            attrs: { "aria-label": `remove ${chip.item}` },
            on: { click: () => toggle(chip.item) },
          }),
        ),
      ),
    );
    el.dataset.selected = (model.get("selected") || []).join(" ");
  }

  function drawList() {
    const query = model.get("query") || "";
    const selected = new Set(model.get("selected") || []);
    rows = optionItems(model.get("senses") || [], query, model.get("allow_lemmas"));
    if (active >= rows.length) active = rows.length - 1;
    list.replaceChildren(
      ...rows.map((row, i) => {
        const node = optionNode(row, `${uid}-opt-${i}`, selected.has(row.item), i === active);
        node.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the input
        node.addEventListener("click", () => {
          active = i;
          toggle(row.item);
        });
        return node;
      }),
    );
    list.hidden = rows.length === 0;
    list.classList.toggle("ess-stale", !fresh());
    input.setAttribute("aria-expanded", String(rows.length > 0));
    if (active >= 0) {
      input.setAttribute("aria-activedescendant", `${uid}-opt-${active}`);
      list.children[active]?.scrollIntoView?.({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
    const suggestions = model.get("suggestions") || [];
    const message = model.get("message") || "";
    if (!query.trim()) {
      status.replaceChildren(h("span", { text: `WordNet 3.0 (${model.get("source") || "?"})` }));
    } else if (!fresh()) {
      status.replaceChildren(h("span", { text: "looking up…" }));
    } else if (message || suggestions.length) {
      status.replaceChildren(
        h("span", { className: "ess-message", text: message }),
        ...suggestions.map((s) =>
          h("button", {
            className: "ess-suggest",
            text: s,
            title: `look up ${s}`,
            on: {
              click: () => {
                input.value = s;
                active = -1;
                send(model, "query", s);
                input.focus();
              },
            },
          }),
        ),
      );
    } else {
      const n = (model.get("senses") || []).length;
      status.replaceChildren(
        h("span", { text: `${n} sense${n === 1 ? "" : "s"} (${Number(model.get("lookup_ms")).toFixed(1)} ms in the kernel)` }),
      );
    }
    el.dataset.answered = model.get("answered") || "";
    if (pendingEnter && fresh()) {
      pendingEnter = false;
      const index = active >= 0 ? active : rows.length === 1 ? 0 : -1;
      if (index >= 0) toggle(rows[index].item);
    }
  }

  // A burst of keystrokes becomes one lookup; Python answers each query in order.
  const sendQuery = debounce(() => {
    if (model.get("query") !== input.value) send(model, "query", input.value);
  }, 60);
  input.addEventListener("input", () => {
    active = -1;
    sendQuery();
  });
  input.addEventListener("keydown", (event) => {
    if (["ArrowDown", "ArrowUp", "Home", "End"].includes(event.key) && rows.length) {
      event.preventDefault();
      active = moveActive(active, event.key, rows.length);
      drawList();
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (!fresh()) {
        pendingEnter = true;
        sendQuery.flush();
        return;
      }
      const index = active >= 0 ? active : rows.length === 1 ? 0 : -1;
      if (index >= 0) toggle(rows[index].item);
    } else if (event.key === "Escape") {
      input.value = "";
      active = -1;
      send(model, "query", "");
    } else if (event.key === "Backspace" && input.value === "") {
      const selected = model.get("selected") || [];
      if (selected.length) send(model, "selected", selected.slice(0, -1));
    }
  });
  pos.addEventListener("change", () => {
    active = -1;
    send(model, "pos", pos.value);
  });

  function update() {
    label.textContent = model.get("label") || "";
    label.hidden = !model.get("label");
    if (document.activeElement !== input && input.value !== model.get("query")) input.value = model.get("query");
    pos.value = model.get("pos") || "";
    errors.show(model);
    exportBox.value = model.get("export_text") || "";
    if (model.get("import_text") === "" && document.activeElement !== importBox) importBox.value = "";
    drawChips();
    drawList();
  }

  // One redraw per sync message, however many traits it carries.
  let queued = false;
  const schedule = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      update();
    });
  };
  const unlisten = listen(
    model,
    ["label", "query", "pos", "answered", "senses", "suggestions", "message", "selected", "chips", "error", "refused", "stale",
      "export_text", "import_text", "source", "lookup_ms", "allow_lemmas"],
    schedule,
  );
  update();
  el.append(
    label,
    chips,
    h("div", { className: "ess-input-row" }, input, pos, help.button),
    help.panel,
    status,
    list,
    errors.node,
    io,
  );
  return unlisten;
}

export default { render };
