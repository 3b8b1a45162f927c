// Plain-JavaScript peers of the Lab 3 (boids) step, for tools/bench/peers.py.
//
//   node tools/bench/boids_peer.mjs < request.json      prints one JSON line
//
// The same work as swarmlab.boids.step (one step of DT): neighbours within R on the
// periodic box (minimum image d = dx - W floor(dx/W + 0.5)), then per boid
//   a = k_sep SEP_SCALE sum_j -d_ij / (r^2 + EPS)
//     + k_coh COH_SCALE mean_j d_ij + k_ali ALI_SCALE (mean_j v_j - v_i),
//   v' = v + a DT scaled to speed in [V_MIN, V_MAX] (a zero v' keeps v),  x' = wrap(x + v' DT).
// Two neighbour searches: "grid" (a uniform grid of cells of side >= R, counting sort that
// also copies the agents into cell order, 3 x 3 block per boid: what a careful JS author
// writes) and "naive" (every pair, O(N^2)).
// Typed arrays, no allocation inside a step.
//
// Requests: {"cmd": "step", "x": [[..]], "v": [[..]], "W", "H", "p": {...}, "method"}
//           -> {"x", "v"} after one step (the equivalence check);
//           {"cmd": "bench", "sizes": [..], "neighbours": 10, "p": {...}, "budget": s,
//            "naive_max": N} -> {"grid": {N: s/step}, "naive": {N: s/step}}.
import { readFileSync } from "node:fs";

function makeStepper(n, W, H, p) {
  const R = p.radius, R2 = R * R;
  const nx = Math.max(1, Math.floor(W / R)), ny = Math.max(1, Math.floor(H / R));
  const cw = W / nx, ch = H / ny;
  const ncell = nx * ny;
  const head = new Int32Array(ncell + 1), order = new Int32Array(n), cellOf = new Int32Array(n);
  const ax = new Float64Array(n), ay = new Float64Array(n);
  const sepK = p.k_sep * p.SEP_SCALE, cohK = p.k_coh * p.COH_SCALE, aliK = p.k_ali * p.ALI_SCALE;

  function pairTerm(i, j, x, y, vx, vy, acc) {
    let dx = x[j] - x[i];
    dx -= W * Math.floor(dx / W + 0.5);
    let dy = y[j] - y[i];
    dy -= H * Math.floor(dy / H + 0.5);
    const r2 = dx * dx + dy * dy;
    if (r2 > R2) return;
    const w = 1.0 / (r2 + p.EPS);
    acc[0] -= w * dx; acc[1] -= w * dy;    // separation
    acc[2] += dx; acc[3] += dy;            // cohesion: sum of d
    acc[4] += vx[j]; acc[5] += vy[j];      // alignment: sum of v_j
    acc[6] += 1;
  }

  // acceleration of agent i (output slot) from its sums; k indexes vx, vy
  function finishAt(i, k, acc, vx, vy) {
    const c = acc[6];
    let a0 = sepK * acc[0], a1 = sepK * acc[1];
    if (c > 0) {
      a0 += cohK * acc[2] / c + aliK * (acc[4] / c - vx[k]);
      a1 += cohK * acc[3] / c + aliK * (acc[5] / c - vy[k]);
    }
    ax[i] = a0; ay[i] = a1;
  }
  const finish = (i, acc, vx, vy) => finishAt(i, i, acc, vx, vy);

  const acc = new Float64Array(7);
  // grid state: agents copied into cell order each step (contiguous, cache-friendly scans)
  const sx = new Float64Array(n), sy = new Float64Array(n), svx = new Float64Array(n), svy = new Float64Array(n);
  const fill = new Int32Array(ncell);
  function accelGrid(x, y, vx, vy) {
    head.fill(0);
    for (let i = 0; i < n; i++) {
      let cx = Math.floor(x[i] / cw), cy = Math.floor(y[i] / ch);
      if (cx >= nx) cx = nx - 1; if (cy >= ny) cy = ny - 1;
      const c = cy * nx + cx;
      cellOf[i] = c; head[c + 1]++;
    }
    for (let c = 0; c < ncell; c++) head[c + 1] += head[c];
    fill.set(head.subarray(0, ncell));
    for (let i = 0; i < n; i++) {
      const k = fill[cellOf[i]]++;
      order[k] = i; sx[k] = x[i]; sy[k] = y[i]; svx[k] = vx[i]; svy[k] = vy[i];
    }
    const rx = nx >= 3 ? 1 : 0, ry = ny >= 3 ? 1 : 0;
    for (let k = 0; k < n; k++) {
      acc.fill(0);
      const i = order[k], c = cellOf[i], cx = c % nx, cy = (c - cx) / nx;
      if (rx && ry) {
        for (let oy = -1; oy <= 1; oy++) {
          const yy = (cy + oy + ny) % ny;
          for (let ox = -1; ox <= 1; ox++) {
            const cc = yy * nx + (cx + ox + nx) % nx;
            for (let m = head[cc], e = head[cc + 1]; m < e; m++) if (m !== k) pairTerm(k, m, sx, sy, svx, svy, acc);
          }
        }
      } else {  // a dimension of 1 or 2 cells: the 3 x 3 block would repeat cells
        for (let m = 0; m < n; m++) if (m !== k) pairTerm(k, m, sx, sy, svx, svy, acc);
      }
      finishAt(i, k, acc, svx, svy);
    }
  }

  function accelNaive(x, y, vx, vy) {
    for (let i = 0; i < n; i++) {
      acc.fill(0);
      for (let j = 0; j < n; j++) if (j !== i) pairTerm(i, j, x, y, vx, vy, acc);
      finish(i, acc, vx, vy);
    }
  }

  return function step(x, y, vx, vy, method) {
    (method === "naive" ? accelNaive : accelGrid)(x, y, vx, vy);
    const DT = p.DT;
    for (let i = 0; i < n; i++) {
      let nvx = vx[i] + ax[i] * DT, nvy = vy[i] + ay[i] * DT;
      let s = Math.sqrt(nvx * nvx + nvy * nvy);
      if (s === 0) { nvx = vx[i]; nvy = vy[i]; s = Math.sqrt(nvx * nvx + nvy * nvy); }
      const target = Math.min(Math.max(s, p.V_MIN), p.V_MAX);
      const f = target / (s > 0 ? s : 1);
      vx[i] = nvx * f; vy[i] = nvy * f;
      let px = x[i] + vx[i] * DT, py = y[i] + vy[i] * DT;
      px -= W * Math.floor(px / W); py -= H * Math.floor(py / H);
      x[i] = px >= W ? px - W : px; y[i] = py >= H ? py - H : py;
    }
  };
}

function columns(rows) {
  const n = rows.length, a = new Float64Array(n), b = new Float64Array(n);
  for (let i = 0; i < n; i++) { a[i] = rows[i][0]; b[i] = rows[i][1]; }
  return [a, b];
}

function mulberry32(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function timeSteps(n, W, H, p, method, budget) {
  const rnd = mulberry32(n);
  const x = new Float64Array(n), y = new Float64Array(n), vx = new Float64Array(n), vy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = rnd() * W; y[i] = rnd() * H;
    const a = rnd() * 2 * Math.PI; vx[i] = 6.5 * Math.cos(a); vy[i] = 6.5 * Math.sin(a);
  }
  const step = makeStepper(n, W, H, p);
  step(x, y, vx, vy, method); // warm-up (JIT)
  step(x, y, vx, vy, method);
  let best = Infinity, spent = 0, k = 0;
  while (k < 5 || (spent < budget && k < 200)) {
    const t0 = performance.now();
    step(x, y, vx, vy, method);
    const dt = (performance.now() - t0) / 1000;
    best = Math.min(best, dt); spent += dt; k++;
  }
  return best;
}

const req = JSON.parse(readFileSync(0, "utf8"));
if (req.cmd === "step") {
  const [x, y] = columns(req.x), [vx, vy] = columns(req.v);
  makeStepper(x.length, req.W, req.H, req.p)(x, y, vx, vy, req.method || "grid");
  const X = [], V = [];
  for (let i = 0; i < x.length; i++) { X.push([x[i], y[i]]); V.push([vx[i], vy[i]]); }
  process.stdout.write(JSON.stringify({ x: X, v: V }) + "\n");
} else if (req.cmd === "bench") {
  const out = { grid: {}, naive: {} };
  for (const n of req.sizes) {
    const area = n * Math.PI * req.p.radius * req.p.radius / req.neighbours;
    const H = Math.sqrt(area / 1.6), W = 1.6 * H;
    out.grid[n] = timeSteps(n, W, H, req.p, "grid", req.budget);
    if (n <= req.naive_max) out.naive[n] = timeSteps(n, W, H, req.p, "naive", req.budget);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} else {
  process.stderr.write(`unknown cmd ${req.cmd}\n`);
  process.exit(2);
}
