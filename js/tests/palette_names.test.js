import assert from "node:assert/strict";
import { test } from "node:test";
import { colorName, groupColors, PALETTE } from "../lib/palette.js";

test("the relation legend's colour words are the names of the colours the pairs are drawn in", () => {
  const colours = groupColors(["pairs: first", "pairs: second", "occupations", "neutral"]);
  assert.equal(colorName(colours.get("pairs: first")), "crimson");
  assert.equal(colorName(colours.get("pairs: second")), "grey");
  assert.equal(colorName(colours.get("neutral")), "orange");
  assert.equal(colorName(PALETTE.pairs["pairs: first"].toUpperCase()), "crimson");
  assert.equal(colorName("#123456"), "#123456"); // a colour without a name is given as its code
});
