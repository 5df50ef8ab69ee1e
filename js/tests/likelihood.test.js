import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDifference, replacePair, tokenTitle, withGroupHeadings } from "../lib/likelihood.js";

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

test("replacePair keeps a typed sense key and drops a blank one", () => {
  const pairs = [{ stereo: "a", anti: "b", bias_type: "x", sense_key: "nurse%1:18:00::" }];
  assert.equal(replacePair(pairs, 0, { ...pairs[0], sense_key: " nurse%2:29:00:: " })[0].sense_key, "nurse%2:29:00::");
  assert.equal("sense_key" in replacePair(pairs, 0, { stereo: "a", anti: "b", bias_type: "x", sense_key: " " })[0], false);
});

test("withGroupHeadings puts one heading before each run of a group", () => {
  const rows = [{ g: "n" }, { g: "v" }, { g: "n" }];
  const out = withGroupHeadings([0, 2, 1], rows, (r) => r.g);
  assert.deepEqual(out, [{ heading: "n" }, { index: 0 }, { index: 2 }, { heading: "v" }, { index: 1 }]);
});
