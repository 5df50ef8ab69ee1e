import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateWidth } from "../lib/labels.js";
import { wrapWords } from "../lib/wrap.js";

const AXIS = "RIPA = <w, b>   (← man, boy, he, his | woman, girl, she, her →)";

test("a line that fits stays one line, spaces kept", () => {
  assert.deepEqual(wrapWords(AXIS, 2000), [AXIS]);
  assert.deepEqual(wrapWords("", 100), [""]);
});

test("wrapped lines fit, break at spaces only and give back every word in order", () => {
  for (const width of [80, 150, 230]) {
    const lines = wrapWords(AXIS, width);
    assert.ok(lines.length > 1);
    for (const line of lines) assert.ok(estimateWidth(line, 11) <= width || !line.includes(" "), `${width}: ${line}`);
    assert.deepEqual(lines.join(" ").split(/\s+/), AXIS.split(/\s+/));
  }
});

test("a word wider than the width has a line of its own", () => {
  assert.deepEqual(wrapWords("a supercalifragilistic b", 30), ["a", "supercalifragilistic", "b"]);
});

test("fitKey cuts a sense key at a key boundary and leaves what fits alone", async () => {
  const { fitKey } = await import("../lib/wrap.js");
  const key = "engineer%1:18:00::";
  assert.equal(fitKey(key, 500), key);
  assert.equal(fitKey("two words", 5), "two words"); // fitWords' job
  const cut = fitKey(key, estimateWidth("engineer%1:1…", 11));
  assert.equal(cut, "engineer%1…");
  for (const width of [30, 50, 70, 90]) {
    const out = fitKey(key, width);
    assert.ok(out.endsWith("…") && key.startsWith(out.slice(0, -1)));
    if (out.length > 4) assert.ok(estimateWidth(out, 11) <= width, `${width}: ${out}`);
  }
  assert.equal(fitKey("abcdefghijklmnop", estimateWidth("abcde…", 11)), "abcde…");
});
