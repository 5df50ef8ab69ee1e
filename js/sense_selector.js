// SenseSelector: type a lemma, see its WordNet senses, pick one or more.
// The view sends only what the user typed (`query`, `pos`) and picked
// (`selected`); Python looks the lemma up and answers in `senses` /
// `suggestions`, naming the query it answers in `answered`. Glosses, examples
// and keys are data: they reach the page only through textContent.
import "./sense_selector.css";
import { h, listen } from "./lib/dom.js";
import { chipNode, optionNode, rowName, selectorParts, statusNodes } from "./lib/sense_nodes.js";
import { debounce, moveActive, optionItems, toggled } from "./lib/senses.js";
import { errorState, mountRoot } from "./lib/ui.js";

const TRAITS = ["label", "query", "pos", "answered", "senses", "suggestions", "message", "selected", "chips", "error",
  "refused", "stale", "export_text", "import_text", "source", "lookup_ms", "allow_lemmas", "tools"];

let counter = 0;

function send(model, name, value) {
  model.set(name, value);
  model.save_changes();
}

// Does the list answer what is in the input now (not an earlier keystroke)?
function fresh(view) {
  return view.model.get("answered") === `${view.parts.input.value}|${view.model.get("pos")}`;
}

function toggle(view, item) {
  const { model } = view;
  const before = model.get("selected") || [];
  const row = view.rows.find((r) => r.item === item);
  const name = row ? rowName(row) : item;
  // say what the toggle did, so removing by a second Enter or click is never silent
  view.parts.notice.textContent = before.includes(item) ? `Removed ${name} (Enter or click again to pick it)` : `Picked ${name}`;
  view.parts.notice.dataset.action = before.includes(item) ? "removed" : "picked";
  send(model, "selected", toggled(before, item, model.get("multiple")));
}

/** Enter: pick the active row; with none highlighted, the first sense (e.g. "nurse n.1"). */
function pickActive(view) {
  const firstSense = view.rows.findIndex((r) => r.sense);
  const index = view.active >= 0 ? view.active : firstSense >= 0 ? firstSense : view.rows.length ? 0 : -1;
  if (index >= 0) {
    view.active = index;
    toggle(view, view.rows[index].item);
  }
}

function drawChips(view) {
  const { model, parts, el } = view;
  parts.chips.replaceChildren(...(model.get("chips") || []).map((chip) => chipNode(chip, (item) => toggle(view, item))));
  el.dataset.selected = (model.get("selected") || []).join(" ");
}

function drawOptions(view) {
  const { model, parts, uid } = view;
  const selected = new Set(model.get("selected") || []);
  view.rows = optionItems(model.get("senses") || [], model.get("query") || "", model.get("allow_lemmas"));
  if (view.active >= view.rows.length) view.active = view.rows.length - 1;
  parts.list.replaceChildren(
    ...view.rows.map((row, i) => {
      const node = optionNode(row, `${uid}-opt-${i}`, selected.has(row.item), i === view.active);
      node.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the input
      node.addEventListener("click", () => {
        view.active = i;
        toggle(view, row.item);
      });
      return node;
    }),
  );
  parts.list.hidden = view.rows.length === 0;
  parts.list.classList.toggle("ess-stale", !fresh(view));
  parts.input.setAttribute("aria-expanded", String(view.rows.length > 0));
  if (view.active >= 0) {
    parts.input.setAttribute("aria-activedescendant", `${uid}-opt-${view.active}`);
    parts.list.children[view.active]?.scrollIntoView?.({ block: "nearest" });
  } else {
    parts.input.removeAttribute("aria-activedescendant");
  }
}

function lookUp(view, text) {
  view.parts.input.value = text;
  view.active = -1;
  send(view.model, "query", text);
  view.parts.input.focus();
}

function drawList(view) {
  const { model, parts, el } = view;
  drawOptions(view);
  const status = {
    query: model.get("query") || "",
    fresh: fresh(view),
    message: model.get("message") || "",
    suggestions: model.get("suggestions") || [],
    count: (model.get("senses") || []).length,
    lookupMs: model.get("lookup_ms"),
    source: model.get("source"),
    tools: model.get("tools") !== false,
  };
  parts.status.replaceChildren(...statusNodes(status, (s) => lookUp(view, s)));
  el.dataset.answered = model.get("answered") || "";
  if (view.pendingEnter && fresh(view)) {
    view.pendingEnter = false;
    pickActive(view);
  }
}

function onKeydown(view, event) {
  const { model, parts } = view;
  if (["ArrowDown", "ArrowUp", "Home", "End"].includes(event.key) && view.rows.length) {
    event.preventDefault();
    view.active = moveActive(view.active, event.key, view.rows.length);
    drawList(view);
  } else if (event.key === "Enter") {
    event.preventDefault();
    if (!fresh(view)) {
      view.pendingEnter = true; // Enter pressed before the answer came: apply it when it does
      view.sendQuery.flush();
      return;
    }
    pickActive(view);
  } else if (event.key === "Escape") {
    parts.input.value = "";
    view.active = -1;
    send(model, "query", "");
  } else if (event.key === "Backspace" && parts.input.value === "") {
    const selected = model.get("selected") || [];
    if (selected.length) send(model, "selected", selected.slice(0, -1));
  }
}

function wire(view) {
  const { model, parts } = view;
  // A burst of keystrokes becomes one lookup; Python answers each query in order.
  view.sendQuery = debounce(() => {
    if (model.get("query") !== parts.input.value) send(model, "query", parts.input.value);
  }, 60);
  parts.input.addEventListener("input", () => {
    view.active = -1;
    view.sendQuery();
  });
  parts.input.addEventListener("keydown", (event) => onKeydown(view, event));
  parts.pos.addEventListener("change", () => {
    view.active = -1;
    send(model, "pos", parts.pos.value);
  });
  parts.importButton.addEventListener("click", () => send(model, "import_text", parts.importBox.value));
}

function update(view) {
  const { model, parts } = view;
  parts.label.textContent = model.get("label") || "";
  parts.label.hidden = !model.get("label");
  if (document.activeElement !== parts.input && parts.input.value !== model.get("query")) {
    parts.input.value = model.get("query");
  }
  parts.pos.value = model.get("pos") || "";
  // tools off: a composing widget (the sense explorer) shows the source line, "?" and import/export once
  const tools = model.get("tools") !== false;
  parts.help.button.hidden = !tools;
  if (!tools) parts.help.panel.hidden = true;
  parts.io.hidden = !tools;
  view.el.dataset.tools = String(tools);
  view.errors.show(model);
  parts.exportBox.value = model.get("export_text") || "";
  if (model.get("import_text") === "" && document.activeElement !== parts.importBox) parts.importBox.value = "";
  drawChips(view);
  drawList(view);
}

function render({ model, el }) {
  mountRoot(el, "embias-sense-selector");
  const uid = `ess-${++counter}`;
  const parts = selectorParts(uid);
  const view = { model, el, uid, parts, errors: errorState(el), active: -1, rows: [], pendingEnter: false };
  wire(view);
  // One redraw per sync message, however many traits it carries.
  let queued = false;
  const schedule = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      update(view);
    });
  };
  const unlisten = listen(model, TRAITS, schedule);
  update(view);
  el.append(
    parts.label,
    parts.chips,
    h("div", { className: "ess-input-row" }, parts.input, parts.pos, parts.help.button),
    parts.help.panel,
    parts.status,
    parts.notice,
    parts.list,
    view.errors.node,
    parts.io,
  );
  return unlisten;
}

export default { render };
