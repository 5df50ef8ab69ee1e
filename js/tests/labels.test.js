import assert from "node:assert/strict";
import { test } from "node:test";
import { placeLabels } from "../lib/labels.js";

function overlaps(items, placed, gap) {
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      if (!placed[i].shown || !placed[j].shown || placed[i].lane !== placed[j].lane) continue;
      const [a, b] = items[i].x < items[j].x ? [items[i], items[j]] : [items[j], items[i]];
      if (a.x + a.width / 2 + gap > b.x - b.width / 2) return true;
    }
  }
  return false;
}

test("far apart labels share lane 0", () => {
  const placed = placeLabels([{ x: 0, width: 20 }, { x: 100, width: 20 }]);
  assert.deepEqual(placed, [{ lane: 0, shown: true }, { lane: 0, shown: true }]);
});

test("labels at one spot go to successive lanes, and no two labels in a lane overlap", () => {
  const items = [10, 12, 14, 16, 18, 60, 61].map((x) => ({ x, width: 30 }));
  const placed = placeLabels(items, { lanes: 4, gap: 4 });
  assert.deepEqual(placed.slice(0, 4).map((p) => p.lane), [0, 1, 2, 3]);
  assert.equal(placed[4].shown, false); // a fifth one at the same spot has no room
  assert.equal(placed[5].lane, 0); // 60 - 15 >= 10 + 15 + 4
  assert.equal(overlaps(items, placed, 4), false);
});

test("input order does not matter: placement follows x", () => {
  const items = [{ x: 50, width: 40 }, { x: 0, width: 40 }, { x: 30, width: 40 }];
  const placed = placeLabels(items, { lanes: 3, gap: 2 });
  assert.equal(placed[1].lane, 0);
  assert.equal(placed[2].lane, 1);
  assert.equal(placed[0].lane, 0); // 50 - 20 = 30 >= 0 + 20 + 2
});
