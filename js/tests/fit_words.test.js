import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateWidth, fitWords } from "../lib/labels.js";

test("a label that fits is kept as it is", () => {
  assert.equal(fitWords("This is John.", 200), "This is John.");
});

test("a long sentence loses whole words, never part of one, and keeps the slot word", () => {
  const sentence = "The person's name is Katherine and she works here.";
  const out = fitWords(sentence, 120, { keep: "Katherine" });
  assert.ok(out.includes("Katherine"), out);
  assert.ok(estimateWidth(out, 11) <= 120, out);
  const kept = out.replaceAll("…", "").trim().split(/\s+/);
  const words = sentence.split(" ");
  for (const w of kept) assert.ok(words.includes(w), `${w} is a cut word in ${out}`);
  assert.ok(out.startsWith("… ") && out.endsWith(" …"), out);
});

test("a slot word at the start keeps the start", () => {
  const out = fitWords("Katherine is a person whose name appears in this long sentence.", 110, { keep: "katherine" });
  assert.ok(out.startsWith("Katherine"), out);
  assert.ok(out.endsWith(" …"), out);
});

test("a single word wider than the room is shown whole", () => {
  assert.equal(fitWords("Supercalifragilistic", 20), "Supercalifragilistic");
});
