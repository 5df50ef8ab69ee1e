import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDifference, replacePair, tokenTitle } from "../lib/likelihood.js";

test("replacePair replaces one pair, trimmed, and leaves the others", () => {
  const pairs = [
    { stereo: "a", anti: "b", bias_type: "x" },
    { stereo: "c", anti: "d", bias_type: "y" },
  ];
  const out = replacePair(pairs, 1, { stereo: " C ", anti: "D", bias_type: " z" });
  assert.deepEqual(out, [pairs[0], { stereo: "C", anti: "D", bias_type: "z" }]);
  assert.equal(pairs[1].stereo, "c");
});

test("tokenTitle says what the numbers are", () => {
  const t = tokenTitle({ token: "nurse", log_prob: -2.5, attention: null, modified: true, counted: false });
  assert.match(t, /log P = -2\.500/);
  assert.match(t, /differs/);
  assert.match(t, /not counted/);
});

test("formatDifference keeps small differences visible", () => {
  assert.equal(formatDifference(1.23456), "+1.235");
  assert.equal(formatDifference(-0.000199), "-0.000199");
  assert.equal(formatDifference(0), "0");
  assert.equal(formatDifference(null), "");
});
