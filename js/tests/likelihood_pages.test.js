import assert from "node:assert/strict";
import { test } from "node:test";
import { PAGE_ROWS, pageOf, pageText } from "../lib/likelihood_pages.js";

const range = (n) => Array.from({ length: n }, (_, i) => i);

test("90 rows make two pages of 50 and 40, in the display order", () => {
  const order = range(90).reverse();
  const one = pageOf(order, 90, 0);
  assert.equal(PAGE_ROWS, 50);
  assert.deepEqual(one.indices, range(90).reverse().slice(0, 50));
  assert.deepEqual([one.first, one.last, one.total, one.pages], [1, 50, 90, 2]);
  assert.equal(pageText(one), "rows 1–50 of 90");
  const two = pageOf(order, 90, 1);
  assert.deepEqual(two.indices, range(40).reverse());
  assert.equal(pageText(two), "rows 51–90 of 90");
});

test("a page past the end shows the last page; before the start the first", () => {
  assert.equal(pageOf(range(60), 60, 7).page, 1);
  assert.deepEqual(pageOf(range(60), 60, 7).indices, range(60).slice(50));
  assert.equal(pageOf(range(60), 60, -3).page, 0);
});

test("one page, no rows, and order entries beyond the rows", () => {
  assert.equal(pageText(pageOf(range(3), 3, 0)), "3 rows");
  assert.equal(pageText(pageOf([0], 1, 0)), "1 row");
  const none = pageOf([], 0, 0);
  assert.deepEqual([none.first, none.last, none.total, none.pages, none.indices.length], [0, 0, 0, 1, 0]);
  assert.deepEqual(pageOf([0, 5, 1], 2, 0).indices, [0, 1]);
});
