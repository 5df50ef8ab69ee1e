import assert from "node:assert/strict";
import { test } from "node:test";
import { deflateSync } from "node:zlib";
import { crc32, figureFrame, figureTitle, MIN_LABEL_PX, PNG_SCALE, pngPpi, readableFontSize, withPpi } from "../lib/figure_frame.js";

const be32 = (n) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const bytes = (text) => [...Buffer.from(text, "latin1")];

/** A PNG chunk written by hand (length, type, data, CRC over type + data). */
function chunk(type, data) {
  const body = [...bytes(type), ...data];
  return [...be32(data.length), ...body, ...be32(crc32(Uint8Array.from(body)))];
}

/** A 2 x 1 grey PNG, optionally with a pHYs chunk already (72 dpi = 2835 px/m). */
function tinyPng(phys = false) {
  const ihdr = [...be32(2), ...be32(1), 8, 0, 0, 0, 0];
  const idat = [...deflateSync(Uint8Array.from([0, 128, 200]))];
  return Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10, ...chunk("IHDR", ihdr),
    ...(phys ? chunk("pHYs", [...be32(2835), ...be32(2835), 1]) : []), ...chunk("IDAT", idat), ...chunk("IEND", [])]);
}

/** [type, data, crc ok] of every chunk. */
function chunks(png) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out = [];
  for (let at = 8; at < png.length;) {
    const len = view.getUint32(at);
    const body = png.subarray(at + 4, at + 8 + len);
    out.push([Buffer.from(body.subarray(0, 4)).toString("latin1"), body.subarray(4), crc32(body) === view.getUint32(at + 8 + len)]);
    at += 12 + len;
  }
  return out;
}

test("CRC-32 gives the standard check value", () => {
  assert.equal(crc32(Uint8Array.from(bytes("123456789"))), 0xcbf43926);
});

test("the PNG states 300 dpi in one pHYs chunk after IHDR, pixels untouched, every CRC valid", () => {
  for (const had of [false, true]) {
    const before = tinyPng(had);
    const after = withPpi(before, 300);
    const list = chunks(after);
    assert.deepEqual(list.map(([t]) => t), ["IHDR", "pHYs", "IDAT", "IEND"]);
    assert.ok(list.every(([, , ok]) => ok));
    const ppm = Math.round(300 / 0.0254);
    assert.deepEqual([...list[1][1]], [...be32(ppm), ...be32(ppm), 1]);
    assert.ok(Math.abs(pngPpi(after) - 300) < 0.01);
    assert.deepEqual([...chunks(before).find(([t]) => t === "IDAT")[1]], [...list[2][1]]);
  }
  assert.equal(pngPpi(tinyPng(false)), null);
  assert.throws(() => withPpi(Uint8Array.from(bytes("GIF89a, not a PNG at all, long enough")), 300), /not a PNG/);
});

test("the canvas is scaled 300/96 and labels below 11 px are raised", () => {
  assert.equal(PNG_SCALE, 300 / 96);
  assert.equal(MIN_LABEL_PX, 11);
  assert.equal(readableFontSize("10px"), "11px");
  assert.equal(readableFontSize("12px"), "12px");
  assert.equal(readableFontSize("1em"), "1em");
});

test("the frame names the test and the model, the no-bias line and the significance rule", () => {
  assert.equal(figureTitle("WEAT 6", "glove-6b-50d"), "WEAT 6 — glove-6b-50d");
  assert.equal(figureTitle("WEAT 6 on glove-6b-50d", "glove-6b-50d"), "WEAT 6 on glove-6b-50d");
  assert.equal(figureTitle("", "m"), "m");
  const f = figureFrame({ test: "CrowS-Pairs bias score", model: "demo", lines: ["a", "", "b"], legend: [["X", "c"]],
    ref: [50, "unbiased"], alpha: 0.01, correction: "Holm" });
  assert.equal(f.title, "CrowS-Pairs bias score — demo");
  assert.deepEqual(f.lines, ["a", "b"]);
  assert.deepEqual(f.legend, [["X", "c"], ["line at 50: unbiased", "embias-fig-ref"],
    ["* significant: p < α = 0.01; correction for multiple tests: Holm", null]]);
  assert.deepEqual(figureFrame({ test: "t", model: "m" }).legend, []);  // no alpha: no significance entry
});
