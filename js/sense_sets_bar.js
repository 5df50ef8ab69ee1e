// SenseSetsBar: what the sense explorer's four selectors share, shown once: the WordNet source line,
// the "?" help and JSON import/export of all four sets. Python (widgets/sense_sets_bar.py) writes
// export_text and reads import_text; the text reaches the page only through textContent / value.
import "./sense_selector.css";
import { h, listen } from "./lib/dom.js";
import { selectorParts, sourceNode } from "./lib/sense_nodes.js";
import { errorState, mountRoot } from "./lib/ui.js";

let counter = 0;

function render({ model, el }) {
  mountRoot(el, "embias-sense-selector");
  el.classList.add("embias-sense-sets");
  const parts = selectorParts(`ess-sets-${++counter}`, { ioTitle: "Import / export JSON (all four sets)" });
  const errors = errorState(el);
  const line = h("div", { className: "ess-sets-row" });
  parts.importBox.placeholder = '{"sets": {"targ1": ["nurse%1:18:00::", ...], ...}}';
  parts.importButton.addEventListener("click", () => {
    model.set("import_text", parts.importBox.value);
    model.save_changes();
  });
  function update() {
    line.replaceChildren(sourceNode(model.get("source")), parts.help.button);
    parts.exportBox.value = model.get("export_text") || "";
    if (model.get("import_text") === "" && document.activeElement !== parts.importBox) parts.importBox.value = "";
    errors.show(model);
  }
  const unlisten = listen(model, ["source", "export_text", "import_text", "error", "refused", "stale"], update);
  update();
  el.append(line, parts.help.panel, errors.node, parts.io);
  return unlisten;
}

export default { render };
