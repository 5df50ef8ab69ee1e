// Typing pairs into the paired-likelihood table: the row editor of one pair and the adder of a new one.
// Only what the user typed goes back to Python (the `pairs` trait).
import { h } from "./dom.js";
import { button, group } from "./ui.js";

function input(className, value, field, label, placeholder) {
  const props = { className, value, dataset: { field }, attrs: label ? { "aria-label": label } : {} };
  return h("input", placeholder ? { ...props, placeholder } : props);
}

/** The row that edits `record` in place: Enter (or save) calls `onSave(edited)`, Escape (or cancel) `onCancel`. */
export function editorRow(record, onSave, onCancel) {
  const stereo = input("plt-input", record.stereo, "stereo", "more stereotypical sentence");
  const anti = input("plt-input", record.anti, "anti", "less stereotypical sentence");
  const type = input("plt-input plt-type-input", record.bias_type, "bias_type", "bias type");
  const sense = input("plt-input plt-type-input", record.sense_key || "", "sense_key", "", "sense key");
  const save = () =>
    onSave({ ...record, stereo: stereo.value, anti: anti.value, bias_type: type.value, sense_key: sense.value });
  for (const box of [stereo, anti, type, sense]) {
    box.addEventListener("keydown", (e) => {
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

function newBox(name, placeholder, label) {
  return h("input", { className: `plt-new plt-new-${name}`, placeholder, attrs: { "aria-label": label } });
}

/** The boxes for a new pair; `onAdd(record)` gets it only when both sentences are there. */
export function createAdder(onAdd) {
  const stereo = newBox("stereo", "more stereotypical sentence", "new more stereotypical sentence");
  const anti = newBox("anti", "less stereotypical sentence", "new less stereotypical sentence");
  const type = newBox("type", "bias type", "bias type of the new pair");
  const sense = newBox("sense", "sense key (optional)", "sense key of the new pair");
  const hint = h("div", { className: "plt-adder-hint", attrs: { "aria-live": "polite" } });
  const boxes = [stereo, anti, type, sense];

  /** Add the typed pair only when both sentences are there; otherwise point to the missing one. */
  function addPair() {
    const record = { stereo: stereo.value.trim(), anti: anti.value.trim(), bias_type: type.value.trim() };
    if (sense.value.trim()) record.sense_key = sense.value.trim();
    const missing = !record.stereo ? stereo : !record.anti ? anti : null;
    if (missing) {
      hint.textContent = `type the ${missing === stereo ? "more" : "less"} stereotypical sentence too`;
      missing.focus();
      return;
    }
    hint.textContent = "";
    onAdd(record);
    for (const box of boxes) box.value = "";
    stereo.focus();
  }
  // Enter moves on to the next box, and adds the pair from the last boxes (or when both sentences are typed)
  const next = new Map([[stereo, anti], [anti, type]]);
  for (const box of boxes) {
    box.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        box.value = "";
        hint.textContent = "";
        return;
      }
      if (e.key !== "Enter") return;
      e.preventDefault();
      if (next.has(box) && !(stereo.value.trim() && anti.value.trim())) next.get(box).focus();
      else addPair();
    });
  }
  const add = button("add pair", () => addPair(), { className: "plt-add", title: "add the pair (both sentences needed)" });
  return h("div", { className: "plt-adder" }, ...boxes, add, hint);
}
