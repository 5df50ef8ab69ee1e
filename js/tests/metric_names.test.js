// The score picker's names for the Python METRIC constants (PLL-word-l2r keeps its paper's casing).
import assert from "node:assert/strict";
import { test } from "node:test";

import { METRIC_NAMES, metricName } from "../lib/likelihood.js";

test("every masked-LM metric has its paper's name", () => {
  assert.deepEqual(Object.keys(METRIC_NAMES), ["cps", "pll", "pll-word-l2r", "aul", "aula"]);
  assert.equal(metricName("pll-word-l2r"), "PLL-word-l2r");
  assert.equal(metricName("aula"), "AULA");
});

test("an unknown metric is upper-cased, a missing one is empty", () => {
  assert.equal(metricName("new"), "NEW");
  assert.equal(metricName(undefined), "");
});
