// Lab 3's stage drawn into a recording context: it reads a boid's fields through the session's
// frame layout (not fixed offsets), and groups the glyphs by heading colour without losing any.
import { test } from "node:test";
import assert from "node:assert/strict";

import { BoidsStage } from "../../assets/js/labs/boids/stage.js";
import { frameIndex } from "../../assets/js/ui/frame.js";
import { LARGE_SHAPES, setLargeShapes } from "../../assets/js/ui/look.js";

/** A 2-D context that records each path's glyph tips (moveTo) and each fill's colour. */
function recorder() {
  const log = { tips: [], fills: [], tipFill: [] };  // tipFill[k]: the fill of the path holding tip k
  let pathStart = 0;
  const g = {
    fillRect() {}, closePath() {}, lineTo() {}, arc() {}, stroke() {}, save() {}, restore() {},
    translate() {}, setLineDash() {}, createRadialGradient() { return { addColorStop() {} }; },
    beginPath() { pathStart = log.tips.length; },
    moveTo(x, y) { log.tips.push([x, y]); },
    fill() {
      log.fills.push(this.fillStyle);
      for (let k = pathStart; k < log.tips.length; k++) log.tipFill[k] = this.fillStyle;
    },
  };
  return { g, log };
}

function drawn(fields, boids, treat = { on: false }) {
  const { g, log } = recorder();
  const canvas = { width: 400, height: 250, style: {}, getContext: () => g };
  const layout = { header: ["n", "t", "treat_on", "treat_x", "treat_y"], fields, blocks: 1 };
  const fx = frameIndex({ ...layout, stride: fields.length, offset: layout.header.length, count: 0, clock: 1 });
  const stage = new BoidsStage(canvas, fx);
  stage.setWorld({ width: 160, height: 100 });
  const frame = new Float32Array(fx.offset + fx.stride * boids.length);
  frame[fx.h.n] = boids.length;
  boids.forEach((b, k) => { for (const name of fields) frame[fx.offset + fx.stride * k + fx.f[name]] = b[name]; });
  stage.draw(frame, frame.length, treat, { visible: false });
  return log;
}

test("Lab 3's stage draws every boid once, read through the layout, whatever the fields' order", () => {
  const boids = Array.from({ length: 50 }, (_, k) => ({
    x: (k * 37) % 160, y: (k * 11) % 100, vx: Math.cos(k), vy: Math.sin(k * 1.7),
  }));
  const a = drawn(["x", "y", "vx", "vy"], boids);
  const b = drawn(["vy", "x", "vx", "y"], boids);
  assert.equal(a.tips.length, boids.length);
  assert.deepEqual(b.tips, a.tips);
  assert.deepEqual(b.fills, a.fills);
  // each tip lies ahead of its own boid (0.6 glyph lengths along its heading): all boids, once each
  const sx = 400 / 160, sy = 250 / 100;
  const found = boids.map((bd) => a.tips.filter(([x, y]) => {
    const s = Math.hypot(bd.vx, bd.vy);
    const ux = bd.vx / s, uy = bd.vy / s;
    const dx = x - bd.x * sx, dy = y - bd.y * sy;
    return Math.abs(dx * uy - dy * ux) < 1e-3 && dx * ux + dy * uy > 0;  // on its heading, ahead
  }).length);
  assert.ok(found.every((c) => c >= 1), found.join(","));
  // and each glyph is filled with its own heading's colour (the middle hue of its 15-degree
  // bucket of the wheel, ui/heading.js)
  boids.forEach((bd) => {
    const s = Math.hypot(bd.vx, bd.vy);
    const k = a.tips.findIndex(([x, y]) => Math.abs((x - bd.x * sx) * bd.vy - (y - bd.y * sy) * bd.vx) < 1e-3 * s
      && (x - bd.x * sx) * bd.vx + (y - bd.y * sy) * bd.vy > 0);
    const hue = Number(/hsl\(([\d.]+)/.exec(a.tipFill[k])[1]);
    const deg = ((Math.atan2(bd.vy, bd.vx) + Math.PI) * 180) / Math.PI;
    const off = Math.abs(((deg - hue + 540) % 360) - 180);
    assert.ok(off <= 7.5 + 1e-9, `heading ${deg.toFixed(1)} deg drawn in hue ${hue}`);
  });
  // one fill per colour in use, each colour once
  assert.equal(new Set(a.fills).size, a.fills.length);
  // a second, smaller flock on the same stage: the kept buffers do not leak old boids
  const { g, log } = recorder();
  const canvas = { width: 400, height: 250, style: {}, getContext: () => g };
  const fx = frameIndex({ header: ["n", "t", "treat_on", "treat_x", "treat_y"], fields: ["x", "y", "vx", "vy"], blocks: 1, stride: 4, offset: 5, count: 0, clock: 1 });
  const stage = new BoidsStage(canvas, fx);
  stage.setWorld({ width: 160, height: 100 });
  const big = new Float32Array(5 + 4 * 50).fill(1); big[0] = 50;
  stage.draw(big, big.length, { on: false }, { visible: false });
  const small = new Float32Array(5 + 4 * 3).fill(1); small[0] = 3;
  log.tips.length = 0;
  stage.draw(small, small.length, { on: false }, { visible: false });
  assert.equal(log.tips.length, 3);
});

test("Lab 3's treat is drawn under the boids, so a flock round it stays in sight", () => {
  const boids = [{ x: 80, y: 50, vx: 1, vy: 0 }, { x: 20, y: 30, vx: 0, vy: 1 }];
  const log = drawn(["x", "y", "vx", "vy"], boids, { on: true, x: 80, y: 50 });
  const treat = log.fills.indexOf("#ffd666");
  assert.ok(treat >= 0, log.fills.join(" "));
  assert.ok(log.fills.slice(treat + 1).filter((f) => /hsl/.test(f)).length >= 2, log.fills.join(" "));
  assert.ok(log.fills.slice(0, treat).every((f) => !/hsl/.test(f)), log.fills.join(" "));
});

test("Larger shapes draws Lab 3's boids LARGE_SHAPES times as long, in the same places", () => {
  const boids = [{ x: 80, y: 50, vx: 1, vy: 0 }, { x: 20, y: 30, vx: 0, vy: -1 }];
  const usual = drawn(["x", "y", "vx", "vy"], boids);
  setLargeShapes(true);
  let large;
  try { large = drawn(["x", "y", "vx", "vy"], boids); } finally { setLargeShapes(false); }
  const sx = 400 / 160, sy = 250 / 100;
  boids.forEach((b, k) => {  // its tip lies 0.6 glyph lengths ahead of the boid, on its heading
    const reach = (tips) => {
      const [x, y] = tips.find(([tx, ty]) => Math.abs((tx - b.x * sx) * b.vy - (ty - b.y * sy) * b.vx) < 1e-6
        && (tx - b.x * sx) * b.vx + (ty - b.y * sy) * b.vy > 0);
      return Math.hypot(x - b.x * sx, y - b.y * sy);
    };
    const ratio = reach(large.tips) / reach(usual.tips);
    assert.ok(Math.abs(ratio - LARGE_SHAPES) < 1e-9, `boid ${k}: ${ratio}`);
  });
  assert.deepEqual(drawn(["x", "y", "vx", "vy"], boids).tips, usual.tips);  // and back
});

test("a look listener stops when asked (a lab built afresh lets go of its old drawing)", async () => {
  const { onLookChange } = await import("../../assets/js/ui/look.js");
  let calls = 0;
  const off = onLookChange(() => { calls++; });
  setLargeShapes(true);
  off();
  setLargeShapes(false);
  assert.equal(calls, 1);
});

test("Lab 1's threat edge stands 3:1 from its zone on the dark sky and through the projector filter", async () => {
  const { SHADES, THREAT, THREAT_EDGE_PROJECTOR, drawThreat } = await import("../../assets/js/labs/swarm/palette.js");
  const { contrast: ratio, projected } = await import("../../assets/js/ui/heading.js");
  const { setProjectorColours } = await import("../../assets/js/ui/look.js");
  const { hex, over } = await import("./colour.mjs");
  const zone = over(SHADES.threatZone, hex("#0b1d2a"));
  assert.ok(ratio(over(SHADES.threatEdge, zone), zone) >= 3);
  assert.ok(ratio(projected(over(THREAT_EDGE_PROJECTOR, zone)), projected(zone)) >= 3);
  assert.ok(ratio(projected(over(SHADES.threatEdge, zone)), projected(zone)) < 3, "why the projector has its own");
  // drawThreat strokes the edge with the look's colour
  for (const on of [false, true]) {
    setProjectorColours(on);
    const strokes = [];
    const g = new Proxy({}, { get: (t, k) => (k in t ? t[k] : () => {}),
      set: (t, k, v) => { if (k === "strokeStyle") strokes.push(v); t[k] = v; return true; } });
    drawThreat(g, 10, 10, 30, 5);
    assert.equal(strokes[0], on ? THREAT_EDGE_PROJECTOR : SHADES.threatEdge);
    assert.notEqual(strokes[0], THREAT);
  }
  setProjectorColours(false);
});
