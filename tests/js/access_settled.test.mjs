// A paused lab's description after changes (ui/access.js settledCalls): once the changes pause,
// and no later than the cap while they go on (Lab 2's eight-seed check changes it every frame).
import { test } from "node:test";
import assert from "node:assert/strict";

import { settledCalls } from "../../assets/js/ui/access.js";

/** A fake clock: timers run when `advance` passes their time. */
function clock() {
  let t = 0, next = 1;
  const timers = new Map();
  return {
    now: () => t,
    setTimeout: (fn, ms) => { timers.set(next, { at: t + ms, fn }); return next++; },
    clearTimeout: (id) => { timers.delete(id); },
    advance(ms) {
      const end = t + ms;
      for (;;) {
        const [id, due] = [...timers].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at)[0] || [];
        if (!due) break;
        timers.delete(id);
        t = due.at;
        due.fn();
      }
      t = end;
    },
  };
}

test("a burst of changes is answered once, a quiet interval after its last", () => {
  const c = clock(), calls = [];
  const changed = settledCalls((k) => calls.push([k, c.now()]), 350, 1000, c);
  for (let i = 0; i < 5; i++) { changed("vicsek"); c.advance(50); }
  c.advance(1000);
  assert.deepEqual(calls, [["vicsek", 200 + 350]]);
});

test("changes every frame do not put the answer off for ever", () => {
  const c = clock(), calls = [];
  const changed = settledCalls((k) => calls.push(c.now()), 350, 1000, c);
  for (let f = 0; f < 300; f++) { changed("vicsek"); c.advance(16); } // 4.8 s of frames
  assert.ok(calls.length >= 3, `${calls.length} answers in 4.8 s`);
  assert.ok(calls[0] <= 1000 + 350, `first answer at ${calls[0]} ms`);
  for (let k = 1; k < calls.length; k++) assert.ok(calls[k] - calls[k - 1] <= 1000 + 350 + 16, `gap ${calls[k] - calls[k - 1]}`);
});

test("each key keeps its own schedule", () => {
  const c = clock(), calls = [];
  const changed = settledCalls((k) => calls.push(k), 350, 1000, c);
  changed("swarm");
  c.advance(200);
  changed("vicsek");
  c.advance(200);
  assert.deepEqual(calls, ["swarm"]);
  c.advance(200);
  assert.deepEqual(calls, ["swarm", "vicsek"]);
});
