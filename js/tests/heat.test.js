import assert from "node:assert/strict";
import { test } from "node:test";
import { heatScale } from "../lib/heat.js";

test("P(neutral): the scale spans the data and the least neutral cell is the darkest", () => {
  const sc = heatScale([0.9, 0.95, null, 0.8], "neutral");
  assert.equal(sc.lo, 0.8);
  assert.equal(sc.hi, 0.95);
  assert.equal(sc.shade(0.8), 1);
  assert.equal(sc.shade(0.95), 0);
  assert.ok(Math.abs(sc.shade(0.9) - 1 / 3) < 1e-12);
  assert.equal(sc.ends[0][0], 0.95);
  assert.match(sc.ends[1][1], /least neutral/);
});

test("P(contradiction): higher is darker", () => {
  const sc = heatScale([0.1, 0.3], "contradiction");
  assert.equal(sc.shade(0.3), 1);
  assert.equal(sc.shade(0.1), 0);
  assert.match(sc.ends[1][1], /most contradiction/);
});

test("equal values get a middle shade, and no value at all gives a 0..1 scale", () => {
  assert.equal(heatScale([0.5, 0.5], "neutral").shade(0.5), 0.5);
  const empty = heatScale([null], "neutral");
  assert.deepEqual([empty.lo, empty.hi], [0, 1]);
});
