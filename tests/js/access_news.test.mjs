// When a spoken summary is news (ui/access.js isNews): its coarse key changed, or its heading
// turned by TURN_DEG or more, however the compass words' boundaries fall.
import { test } from "node:test";
import assert from "node:assert/strict";

import { isNews } from "../../assets/js/ui/access.js";

const TURN_DEG = 45; // what the engine publishes (describe.NEWS_TURN_DEG; tests/unit/test_describe.py)

const d = (key, heading) => ({ key, heading, news_turn_deg: TURN_DEG });

test("nothing seen yet, or a new key, is news", () => {
  assert.equal(isNews(d("one|headed|3", 10), null), true);
  assert.equal(isNews(d("one|headed|3", 10), d("one|headed|4", 10)), true);
});

test("a heading that wavers across a compass boundary is not news; a turn of TURN_DEG is", () => {
  // 157.5 degrees is the line between "west" and "north-west": 150 and 165 read as two words
  assert.equal(isNews(d("k", 150), d("k", 165)), false);
  assert.equal(isNews(d("k", 165), d("k", 150)), false);
  assert.equal(isNews(d("k", 150 + TURN_DEG), d("k", 150)), true);
  // across east (0 / 360) the turn is the short way round
  assert.equal(isNews(d("k", 350), d("k", 10)), false);
  assert.equal(isNews(d("k", 10), d("k", 350)), false);
  assert.equal(isNews(d("k", 330), d("k", 20)), true);
  assert.equal(isNews(d("k", 180), d("k", 0)), true);
});

test("without a heading on either side only the key counts", () => {
  assert.equal(isNews(d("k", null), d("k", 90)), false);
  assert.equal(isNews(d("k", 90), d("k", undefined)), false);
});

test("automatic summaries back off while nobody acts: 10 s, 20, 40, then every 60 s", async () => {
  const { summaryGap, SUMMARY_EVERY_MS, SUMMARY_MAX_GAP_MS } = await import("../../assets/js/ui/access.js");
  assert.deepEqual([0, 1, 2, 3, 4, 10].map(summaryGap), [10000, 20000, 40000, 60000, 60000, 60000]);
  assert.equal(summaryGap(0), SUMMARY_EVERY_MS);
  assert.equal(summaryGap(99), SUMMARY_MAX_GAP_MS);
});

test("quick repeated actions are answered once: the same words with their count, others in order", async () => {
  const { mergeWords } = await import("../../assets/js/ui/access.js");
  assert.equal(mergeWords(["Restarted."]), "Restarted.");
  assert.equal(mergeWords(["Restarted.", "Restarted.", "Restarted."]), "3 times: Restarted.");
  assert.equal(mergeWords(["Added 10 animals.", "Added 10 animals.", "Threat sent."]), "2 times: Added 10 animals. Threat sent.");
  // the count comes first: words may end with a number ("… 2000 3 times" read as one number)
  assert.equal(mergeWords(["Already at the most animals, 2000.", "Already at the most animals, 2000."]),
    "2 times: Already at the most animals, 2000.");
  assert.equal(mergeWords(["", "Paused.", ""]), "Paused.");
  assert.equal(mergeWords([]), "");
});
