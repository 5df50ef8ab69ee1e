// The sense selector's pieces of page: the option rows, the chips, the status line and the
// empty frame they live in. Glosses, examples and keys are data: text only (textContent).
import { h } from "./dom.js";
import { helpButton } from "./ui.js";

const POS_OPTIONS = [
  ["", "any"],
  ["n", "noun"],
  ["v", "verb"],
  ["a", "adjective"],
  ["r", "adverb"],
];

/** What a row is called: "nurse n.1" (the part of speech in the number, as WordNet numbers senses per
 * part of speech), or the lemma for an "any sense" row. */
export function rowName(row) {
  return row.sense ? senseName(row.sense) : row.item;
}

/** "nurse n.1", "nurse v.1": lemma, part of speech and WordNet sense number. */
export function senseName(sense) {
  return `${sense.lemma} ${sense.pos ? `${sense.pos}.` : ""}${sense.sense_number}`;
}

/** One row of the list: "any sense of <lemma>" (row.sense null) or one WordNet sense. */
export function optionNode(row, id, isSelected, isActive) {
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
      h("span", { className: "ess-lemma", text: senseName(sense) }),
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

/** One picked item as a chip (Python's `chips` record) with its remove button. */
export function chipNode(chip, onRemove) {
  return h(
    "span",
    { className: `ess-chip ess-chip-${chip.kind}`, dataset: { item: chip.item }, title: chip.gloss },
    // the text flows and wraps as one run of words; the remove button stays beside its last line
    h(
      "span",
      { className: "ess-chip-text" },
      h("span", { className: "ess-chip-lemma", text: chip.lemma }),
      " ",
      h("span", { className: "ess-chip-gloss", text: chip.short_gloss }),
      chip.key ? " " : null,
      chip.key ? h("code", { className: "ess-chip-key", text: chip.key }) : null,
    ),
    h("button", {
      className: "ess-remove",
      text: "×",
      title: `remove ${chip.item}`,
      attrs: { "aria-label": `remove ${chip.item}` },
      on: { click: () => onRemove(chip.item) },
    }),
  );
}

/**
 * The status line under the input: the WordNet source when nothing is typed, "looking up…" until
 * Python answers this query, its message and close matches (buttons calling onSuggest), or the count.
 */
export function statusNodes({ query, fresh, message, suggestions, count, lookupMs, source, tools = true }, onSuggest) {
  if (!query.trim()) return tools ? [sourceNode(source)] : [];
  if (!fresh) return [h("span", { text: "looking up…" })];
  if (message || suggestions.length) {
    return [
      h("span", { className: "ess-message", text: message }),
      ...suggestions.map((s) =>
        h("button", { className: "ess-suggest", text: s, title: `look up ${s}`, on: { click: () => onSuggest(s) } }),
      ),
    ];
  }
  return [h("span", { text: `${count} sense${count === 1 ? "" : "s"} (${Number(lookupMs).toFixed(1)} ms in the kernel)` })];
}

/** "WordNet 3.0 (<files>)": which WordNet answers the lookups (shown once per selector or per explorer). */
export function sourceNode(source) {
  return h("span", { className: "ess-source", text: `WordNet 3.0 (${source || "?"})` });
}

/** The empty frame of a selector: every element, named, for render() to fill and wire. */
export function selectorParts(uid, { ioTitle = "Import / export JSON" } = {}) {
  const importBox = h("textarea", { className: "ess-import-text", rows: 3, placeholder: '["nurse%1:18:00::", ...]' });
  const exportBox = h("textarea", { className: "ess-export-text", rows: 3, readOnly: true });
  const importButton = h("button", { className: "ess-import", text: "Import" });
  return {
    label: h("div", { className: "ess-label" }),
    chips: h("div", { className: "ess-chips", attrs: { "aria-label": "selected senses" } }),
    input: h("input", {
      type: "text",
      className: "ess-input",
      placeholder: "lemma or sense key",
      title: "type a lemma (nurse) or a WordNet sense key (nurse%1:18:00::)",
      attrs: {
        role: "combobox",
        "aria-autocomplete": "list",
        "aria-controls": `${uid}-list`,
        "aria-expanded": "false",
        "aria-label": "lemma to look up in WordNet",
        autocomplete: "off",
        spellcheck: "false",
      },
    }),
    pos: h(
      "select",
      { className: "ess-pos-filter", title: "part of speech" },
      POS_OPTIONS.map(([value, text]) => h("option", { value, text })),
    ),
    status: h("div", { className: "ess-status", attrs: { "aria-live": "polite" } }),
    notice: h("div", { className: "ess-notice", attrs: { role: "status", "aria-live": "polite" } }),
    list: h("ul", { className: "ess-list", id: `${uid}-list`, attrs: { role: "listbox", "aria-multiselectable": "true" } }),
    help: helpButton(["sense_key", "lexname"], { title: "What is shown here?" }),
    importBox,
    importButton,
    exportBox,
    io: h(
      "details",
      { className: "ess-io" },
      h("summary", { text: ioTitle }),
      h("div", { className: "ess-io-row" }, importBox, importButton),
      h("div", { className: "ess-io-row" }, exportBox),
    ),
  };
}
