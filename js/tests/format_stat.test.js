import assert from "node:assert/strict";
import { test } from "node:test";
import { formatStat, formatValue } from "../lib/format.js";

test("a headline statistic reads 'name = value' in its kind, 'name < 0.0001' below the p floor", () => {
  assert.equal(formatStat("p", 0.02273, "p"), "p = 0.023");
  assert.equal(formatStat("p", 3e-5, "p"), "p < 0.0001");
  assert.equal(formatStat("d", 1.707777596585637, "effect"), `d = ${formatValue(1.707777596585637, "effect")}`);
  assert.equal(formatStat("d", -0.125, "effect"), "d = -0.13");
  assert.equal(formatStat("d", null, "effect"), "d = —");
});
