// The interval text beside d: the shared formatter's effect-size interval with its level (lib/robustness.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { intervalText } from "../lib/robustness.js";

test("an interval reads as its level and [low, high] in the shared format", () => {
  assert.equal(intervalText({ low: 1.4991, high: 1.8542, level: 0.95, method: "bootstrap" }), "95% CI [1.50, 1.85]");
  assert.equal(intervalText({ low: -0.5, high: 0.25, level: 0.9 }), "90% CI [-0.50, 0.25]");
});

test("no interval, no text", () => {
  assert.equal(intervalText(null), "");
  assert.equal(intervalText({}), "");
  assert.equal(intervalText({ low: null, high: null, level: 0.95 }), "");
});
