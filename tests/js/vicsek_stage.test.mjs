// Lab 2's stage reads the box side L from the session, not an assumed 1: the same run drawn
// in a box of side 1 and, scaled by 2 (positions, radius, step), in a box of side 2 must give
// the very same picture, edge copies of trails and arrows and the followed arrow's
// neighbourhood included (scaling by a power of 2 is exact in floating point).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Stage } from "../../assets/js/labs/vicsek/stage.js";
import { frameIndex } from "../../assets/js/ui/frame.js";

const CSS = 300; // the canvas's CSS size

/** A 2-D context that logs every drawing call with its numeric arguments. */
function recorder() {
  const log = [];
  const g = new Proxy({}, {
    get(target, name) {
      if (name in target) return target[name];
      return (...args) => { log.push([name, ...args.filter((a) => typeof a === "number")]); };
    },
    set(target, name, value) { target[name] = value; return true; },
  });
  return { g, log };
}

const layout = { header: ["n", "t"], fields: ["x", "y", "theta"], blocks: 2, stride: 3, offset: 2, count: 0, clock: 1 };
const fx = frameIndex(layout);

/** n arrows, some near the edges and corners, moving `speed` per update; frame k of the run. */
function frame(k, n, L, speed) {
  const data = new Float32Array(2 + 2 * 3 * n);
  data[0] = n; data[1] = k;
  for (let i = 0; i < n; i++) {
    const th = -Math.PI + (2 * Math.PI * i) / n;
    const x0 = ((i * 0.137 + 0.004) % 1) * L, y0 = ((i * 0.291 + 0.997) % 1) * L;
    for (const [b, kk] of [[0, k], [1, k - 1]]) {
      // block A wrapped; block B unwrapped next to it (the session's convention)
      const ax = x0 + kk * speed * Math.cos(th), ay = y0 + kk * speed * Math.sin(th);
      const wx = ax - L * Math.floor(((x0 + k * speed * Math.cos(th)) / L));
      const wy = ay - L * Math.floor(((y0 + k * speed * Math.sin(th)) / L));
      const o = 2 + (b * n + i) * 3;
      data[o] = wx; data[o + 1] = wy; data[o + 2] = th;
    }
  }
  return data;
}

function run(L) {
  globalThis.window = { devicePixelRatio: 1 };
  const { g, log } = recorder();
  const canvas = { width: 0, height: 0, getContext: () => g,
    getBoundingClientRect: () => ({ left: 10, top: 20, width: CSS, height: CSS }) };
  const n = 12, speed = 0.01 * L;
  const stage = new Stage(canvas, n, { box: L, radius: 0.12 * L, speed, kick: 0.6 });
  for (let k = 1; k <= 6; k++) stage.ingest(frame(k, n, L, speed), fx, k > 1);
  stage.setSelection(0, [1, 2], 0.3);  // arrow 0 starts next to a corner
  log.length = 0;
  stage.draw(0.5);
  const picks = [];
  for (let i = 0; i < n; i++) {
    const p = stage.clientPoint(i);
    picks.push([p.x, p.y, stage.pick(p.x + 1, p.y - 1, 6)]);
  }
  return { log, picks };
}

test("Lab 2's stage draws a box of side 2 exactly as the same run in a box of side 1", () => {
  const one = run(1), two = run(2);
  assert.ok(one.log.length > 100, `${one.log.length} calls`);
  assert.deepEqual(two.log, one.log);
  assert.deepEqual(two.picks, one.picks);
  // every arrow is on the canvas, and a tap next to it picks it
  one.picks.forEach(([x, y, picked], i) => {
    assert.ok(x >= 10 && x <= 10 + CSS && y >= 20 && y <= 20 + CSS, `arrow ${i} at ${x}, ${y}`);
    assert.equal(picked, i);
  });
  // the edge copies are drawn: the corner arrow's neighbourhood circle four times
  const circles = one.log.filter((c) => c[0] === "arc" && Math.abs(c[3] - 0.12 * CSS) < 1e-9);
  assert.equal(circles.length, 4);
});

test("Lab 2's box edge stands 3:1 from the ground in both looks, and Labs 1 and 2 draw the grid as faint in each", async () => {
  const { EDGE } = await import("../../assets/js/labs/vicsek/stage.js");
  const { contrast, projected } = await import("../../assets/js/ui/heading.js");
  const { GRID, SKY, setProjectorColours } = await import("../../assets/js/ui/look.js");
  const { hex, over } = await import("./colour.mjs");
  const sky = hex(SKY);
  const looks = {
    dark: (c) => contrast(c, sky),
    projector: (c) => contrast(projected(c), projected(sky)),  // the canvas as the filter shows it
  };
  for (const [look, ratio] of Object.entries(looks)) {
    assert.ok(ratio(over(EDGE, sky)) >= 3, `${look}: edge ${ratio(over(EDGE, sky)).toFixed(2)}:1`);
    const grid = ratio(over(GRID[look], sky));
    assert.ok(grid >= 1.1 && grid <= 1.4, `${look}: grid ${grid.toFixed(2)}:1 (a faint scale, visible)`);
  }
  // and the stage strokes the grid with the look's colour
  const seen = [];
  const g = new Proxy({}, { get: (t, k) => (k in t ? t[k] : () => {}),
    set: (t, k, v) => { if (k === "strokeStyle") seen.push(v); t[k] = v; return true; } });
  const canvas = { width: 0, height: 0, getContext: () => g,
    getBoundingClientRect: () => ({ left: 0, top: 0, width: CSS, height: CSS }) };
  const stage = new Stage(canvas, 4, { box: 1, radius: 0.12, speed: 0.01, kick: 0.6 });
  try {
    for (const on of [false, true]) {
      setProjectorColours(on);
      seen.length = 0;
      stage.draw(0);
      assert.deepEqual(seen.slice(0, 2), [on ? GRID.projector : GRID.dark, EDGE]);
    }
    // Lab 1's stage strokes its grid (squares of 20 lengths) the same way: it had a fixed 0.05
    // white, which the projector filter left at 1.02:1, nothing to see
    const { StageRenderer } = await import("../../assets/js/labs/swarm/renderer.js");
    const lab1 = new StageRenderer({ ...canvas, getBoundingClientRect: () => ({ left: 0, top: 0, width: 320, height: 200 }) },
      { world: [160, 100], maxAgents: 4, trailSeconds: 1, trailEvery: 1, dt: 0.05 });
    for (const on of [false, true]) {
      setProjectorColours(on);
      seen.length = 0;
      lab1.draw(new Float32Array(8), { n: 0, selected: -1, threatActive: false, offset: 8, stride: 4 });
      assert.equal(seen[0], on ? GRID.projector : GRID.dark);
    }
  } finally {
    setProjectorColours(false);
  }
});
