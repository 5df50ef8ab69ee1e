import assert from "node:assert/strict";
import { test } from "node:test";

// splitItems lives in dom.js, which needs no DOM for this function.
const { splitItems, signed } = await import("../lib/dom.js");

test("splitItems splits on newlines, commas, semicolons, tabs and trims", () => {
  assert.deepEqual(splitItems(" rose, tulip\n\nlily ;  black   woman\t"), ["rose", "tulip", "lily", "black woman"]);
  assert.deepEqual(splitItems(""), []);
});

test("signed formats sign and undefined", () => {
  assert.equal(signed(1.23456, 2), "+1.23");
  assert.equal(signed(-0.5, 1), "-0.5");
  assert.equal(signed(null), "undefined");
});
