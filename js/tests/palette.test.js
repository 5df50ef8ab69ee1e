import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { groupColors, heatColor, PALETTE, setColor } from "../lib/palette.js";

const json = JSON.parse(readFileSync(new URL("../../embias_widgets/palette.json", import.meta.url), "utf8"));

test("the front end uses the palette file the Python charts read", () => {
  assert.deepEqual(PALETTE, json);
  assert.equal(setColor("targ2"), json.sets.targ2);
});

test("pair groups keep their colours; other groups take the categorical colours in order", () => {
  const colors = groupColors(["pairs: first", "pairs: second", "men", "women", "men"]);
  assert.equal(colors.get("pairs: first"), json.pairs["pairs: first"]);
  assert.equal(colors.get("men"), json.categorical[0]);
  assert.equal(colors.get("women"), json.categorical[1]);
  assert.equal(colors.size, 4);
});

test("heat shades are the heat colour with alpha growing with the shade, clamped", () => {
  const [r, g, b] = json.heat.rgb;
  assert.equal(heatColor(0), `rgba(${r}, ${g}, ${b}, 0.000)`);
  assert.equal(heatColor(1), `rgba(${r}, ${g}, ${b}, ${json.heat.max_alpha.toFixed(3)})`);
  assert.equal(heatColor(7), heatColor(1));
});
