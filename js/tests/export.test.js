import assert from "node:assert/strict";
import { test } from "node:test";
import { csvCell, fileStem, toCSV, wrapWords } from "../lib/export.js";

test("file stems name the test and the model, with safe characters only", () => {
  assert.equal(fileStem("weat6", "glove-6b-50d"), "weat6_glove-6b-50d");
  assert.equal(fileStem("My test: career/family", "sentence-transformers/all-MiniLM-L6-v2", "per word"),
    "My-test-career-family_sentence-transformers-all-MiniLM-L6-v2_per-word");
  assert.equal(fileStem("../../etc/passwd"), "etc-passwd");
  assert.equal(fileStem("", null, undefined), "embias");
});

test("CSV quotes what needs quoting and keeps numbers exact", () => {
  assert.equal(csvCell('say "hi", then go'), '"say ""hi"", then go"');
  assert.equal(csvCell("line\nbreak"), '"line\nbreak"');
  assert.equal(csvCell(null), "");
  assert.equal(csvCell(NaN), "nan");
  const x = 0.1 + 0.2;
  const text = toCSV(["word", "s"], [["John", x], ["a,b", -1e-7]]);
  assert.equal(text, 'word,s\r\nJohn,0.30000000000000004\r\n"a,b",-1e-7\r\n');
  assert.equal(Number(text.split("\r\n")[1].split(",")[1]), x);
});

test("figure titles wrap at spaces into lines no wider than asked, losing no word", () => {
  const measure = (t) => t.length * 7; // 7 px a character
  const title = "WEAT 6: Male vs female names with career vs family (Caliskan Test 6) on glove-6b-50d";
  const lines = wrapWords(title, 140, measure);
  assert.deepEqual(lines, ["WEAT 6: Male vs", "female names with", "career vs family", "(Caliskan Test 6) on", "glove-6b-50d"]);
  assert.ok(lines.every((l) => measure(l) <= 140));
  assert.equal(lines.join(" "), title);
  assert.deepEqual(wrapWords("a-very-long-single-word", 30, measure), ["a-very-long-single-word"]); // never cut mid-word
  assert.deepEqual(wrapWords("  ", 30, measure), []);
});
