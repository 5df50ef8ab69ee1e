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
