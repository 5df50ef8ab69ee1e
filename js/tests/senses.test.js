import assert from "node:assert/strict";
import { test } from "node:test";
import { debounce, moveActive, optionItems, toggled } from "../lib/senses.js";

const nurse = [
  { key: "nurse%1:18:00::", lemma: "nurse" },
  { key: "nurse%2:29:00::", lemma: "nurse" },
];

test("optionItems puts 'any sense' first only when lemmas are allowed and the lemma has several senses", () => {
  assert.deepEqual(
    optionItems(nurse, "nurse", false).map((r) => r.item),
    ["nurse%1:18:00::", "nurse%2:29:00::"],
  );
  const rows = optionItems(nurse, "nurse", true);
  assert.deepEqual(rows.map((r) => r.item), ["nurse", "nurse%1:18:00::", "nurse%2:29:00::"]);
  assert.equal(rows[0].sense, null);
  assert.equal(rows[0].count, 2);
  assert.equal(optionItems(nurse.slice(0, 1), "nurse", true).length, 1);
  assert.equal(optionItems(nurse.slice(0, 1), "nurse%1:18:00::", true)[0].item, "nurse%1:18:00::");
});

test("moveActive steps within the list and stops at its ends", () => {
  assert.equal(moveActive(-1, "ArrowDown", 3), 0);
  assert.equal(moveActive(2, "ArrowDown", 3), 2);
  assert.equal(moveActive(0, "ArrowUp", 3), 0);
  assert.equal(moveActive(1, "End", 3), 2);
  assert.equal(moveActive(2, "Home", 3), 0);
  assert.equal(moveActive(1, "ArrowDown", 0), -1);
});

test("toggled adds, removes, and replaces when single", () => {
  assert.deepEqual(toggled(["a"], "b", true), ["a", "b"]);
  assert.deepEqual(toggled(["a", "b"], "a", true), ["b"]);
  assert.deepEqual(toggled(["a"], "b", false), ["b"]);
});

test("debounce calls once after a burst, flush calls now", async () => {
  let calls = 0;
  const f = debounce(() => calls++, 20);
  f();
  f();
  f();
  assert.equal(calls, 0);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, 1);
  f();
  f.flush();
  assert.equal(calls, 2);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, 2);
});
