import assert from "node:assert/strict";
import { test } from "node:test";
import { problemOf } from "../lib/problems.js";

const model = (traits) => ({ get: (name) => traits[name] });
const refusedSelected = {
  selected: { value: ["x%9:99:00::"], reason: "no such key", message: "Refused selected = [\"x%9:99:00::\"]: no such key." },
};

test("no error, nothing refused, not stale: nothing to show, numbers stay", () => {
  assert.deepEqual(problemOf(model({ error: "", refused: {}, stale: false })), { text: "", stale: false });
});

test("an error is shown and clears the numbers", () => {
  assert.deepEqual(problemOf(model({ error: "empty set", stale: true })), { text: "empty set", stale: true });
});

test("a refused input stays visible after a later recompute cleared the error", () => {
  const p = problemOf(model({ error: "", refused: refusedSelected, stale: false }));
  assert.equal(p.text, refusedSelected.selected.message);
  assert.equal(p.stale, false); // the numbers are of the kept (valid) input
});

test("a refusal already named by the error is not repeated", () => {
  const message = refusedSelected.selected.message;
  const p = problemOf(model({ error: message, refused: refusedSelected, stale: true }));
  assert.equal(p.text, message);
  assert.equal(p.stale, true);
});

test("stale alone says so, in the widget's words", () => {
  assert.deepEqual(problemOf(model({ stale: true }), { staleText: "press Run" }), { text: "press Run", stale: true });
  assert.match(problemOf(model({ stale: true })).text, /previous input/);
});

test("an error and a different refused input are both shown, one per line", () => {
  const p = problemOf(model({ error: "model failed", refused: refusedSelected, stale: true }));
  assert.deepEqual(p.text.split("\n"), ["model failed", refusedSelected.selected.message]);
});
