import assert from "node:assert/strict";
import { test } from "node:test";
import { createHistory } from "../lib/history.js";

test("undo returns the values pushed, last first, as copies", () => {
  const history = createHistory(10);
  const sets = { targ1: ["a"] };
  history.push(sets);
  sets.targ1.push("b"); // a later edit must not change what was kept
  history.push(sets);
  assert.equal(history.size, 2);
  assert.deepEqual(history.undo(), { targ1: ["a", "b"] });
  assert.deepEqual(history.undo(), { targ1: ["a"] });
  assert.equal(history.canUndo(), false);
  assert.equal(history.undo(), undefined);
});

test("an unchanged value is kept once, and the limit drops the oldest", () => {
  const history = createHistory(2);
  history.push([1]);
  history.push([1]);
  assert.equal(history.size, 1);
  history.push([2]);
  history.push([3]);
  assert.equal(history.size, 2);
  assert.deepEqual(history.undo(), [3]);
  assert.deepEqual(history.undo(), [2]);
});
