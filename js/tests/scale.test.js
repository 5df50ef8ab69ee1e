import assert from "node:assert/strict";
import { test } from "node:test";
import { linear, signedBar } from "../lib/scale.js";

test("linear maps and clamps", () => {
  const x = linear([-2, 2], [0, 400]);
  assert.equal(x(0), 200);
  assert.equal(x(1), 300);
  assert.equal(x(-2), 0);
  assert.equal(x(5), 400);
});

test("signedBar starts at zero for both signs", () => {
  const x = linear([-2, 2], [0, 400]);
  assert.deepEqual(signedBar(x, 1.5), { x: 200, width: 150 });
  assert.deepEqual(signedBar(x, -0.5), { x: 150, width: 50 });
});

import { clipped, niceDomain, tickLabel } from "../lib/scale.js";

test("niceDomain contains 0 and every value, on round ticks", () => {
  assert.deepEqual(niceDomain([0.13, -0.42]), { domain: [-0.6, 0.2], ticks: [-0.6, -0.4, -0.2, 0, 0.2] });
  assert.deepEqual(niceDomain([0.13, -0.42], { nTicks: 9 }).ticks, [-0.5, -0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2]);
  assert.deepEqual(niceDomain([3.7]), { domain: [0, 4], ticks: [0, 1, 2, 3, 4] });
  assert.deepEqual(niceDomain([]).domain, [-1, 1]);
});

test("clipped says which end a value beyond the axis is drawn at", () => {
  assert.equal(clipped(2.3, [-2, 2]), "high");
  assert.equal(clipped(-2.01, [-2, 2]), "low");
  assert.equal(clipped(1.99, [-2, 2]), null);
  assert.equal(clipped(null, [-2, 2]), null);
});

test("tick labels use a real minus sign and no float noise", () => {
  assert.equal(tickLabel(-0.30000000000000004), "\u22120.3");
  assert.equal(tickLabel(2), "2");
});
