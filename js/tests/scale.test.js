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

// Moved from tests/test_relation_widget.py (the axis was fitted in Python before issue 17; one algorithm now).
import { keptAxis } from "../lib/scale.js";

test("the relation axis: nice domains with six ticks (was Python's nice_axis)", () => {
  assert.deepEqual(niceDomain([-0.8, 2.3], { nTicks: 6 }), { domain: [-1, 3], ticks: [-1, 0, 1, 2, 3] });
  // range 0.31 / 5 intervals = 0.062 -> step 0.1 (the next of 0.01, 0.02, 0.05, 0.1)
  assert.deepEqual(niceDomain([0.12, 0.31], { nTicks: 6 }), { domain: [0, 0.4], ticks: [0, 0.1, 0.2, 0.3, 0.4] });
  // range 0.07 / 5 = 0.014 -> step 0.02; -0.07 / 0.02 = -3.5 rounds out to -4 steps
  assert.deepEqual(niceDomain([-0.07], { nTicks: 6 }), { domain: [-0.08, 0], ticks: [-0.08, -0.06, -0.04, -0.02, 0] });
  assert.deepEqual(niceDomain([], { nTicks: 6 }), { domain: [-1, 1], ticks: [-1, -0.5, 0, 0.5, 1] });
});

test("the relation axis holds 0 and every point (the toy pairs of test_relation_widget)", () => {
  const ripa = [2, 0, 3, 1, 3, -1]; // she, he, woman, man, nurse, engineer
  const { domain, ticks } = keptAxis(ripa, null);
  assert.ok(domain[0] <= -1.0);
  assert.ok(domain[1] >= 3.0);
  assert.ok(ticks.includes(0));
});

test("keptAxis keeps the range while points fit, grows it when not, fits it when not kept", () => {
  const first = keptAxis([-0.8, 2.3], null);
  assert.equal(keptAxis([0.5, 2.9], first), first); // every point fits: the axis does not move
  assert.deepEqual(keptAxis([4.2], first).domain, [-2, 6]); // grows from [-1, 3] to hold 4.2 (step 2)
  assert.deepEqual(keptAxis([0.12, 0.31], first, { keep: false }).domain, [0, 0.4]); // fitted afresh
});

import { labelledTicks } from "../lib/scale.js";

test("labelledTicks keeps 0 and drops ticks whose labels would run into their neighbour", () => {
  const ticks = [-0.06, -0.04, -0.02, 0, 0.02, 0.04, 0.06];
  // 7 ticks over 120 px: 20 px apart, "−0.04" is about 5 x 5.8 px: every other label at most
  const narrow = labelledTicks(ticks, linear([-0.06, 0.06], [0, 120]));
  assert.ok(narrow.includes(0));
  assert.ok(narrow.length < ticks.length);
  const x = linear([-0.06, 0.06], [0, 120]);
  const width = (t) => tickLabel(t).length * 10 * 0.58 + 2;
  for (let i = 1; i < narrow.length; i++) {
    assert.ok(x(narrow[i]) - x(narrow[i - 1]) >= (width(narrow[i]) + width(narrow[i - 1])) / 2, `${narrow[i - 1]} and ${narrow[i]} overlap`);
  }
  // 600 px: room for every label
  assert.deepEqual(labelledTicks(ticks, linear([-0.06, 0.06], [0, 600])), ticks);
});
