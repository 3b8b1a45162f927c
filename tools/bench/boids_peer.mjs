// Plain-JavaScript peers of the Lab 3 (boids) step, for tools/bench/peers.py.
//
//   node tools/bench/boids_peer.mjs < request.json      prints one JSON line
//
// The same work as swarmlab.boids.step with the built-in rules (rules_boids.steering), one
// step of DT:
//   neighbours within reach = max(sep_radius, radius, coh_radius) on the periodic box
//   (minimum image d = dx - W floor(dx/W + 0.5)); j is in view of i when
//   u_i . d_ij >= cos(view/2) r_ij (u_i = v_i/|v_i|; view >= 360 sees all);
//   separation s_i = sum over j in view, r <= sep_radius, of -d_ij / (r^2 + EPS);
//   alignment  a_i = mean over j in view, r <= radius, of v_j;
//   cohesion   c_i = mean over j in view, r <= coh_radius, of d_ij;
//   steer(q) = limit(v_max q/|q| - v_i, max_force), 0 where q = 0;
//   a_i = prioritised allocation of k_sep steer(s), k_ali steer(a), k_coh steer(c) within max_force;
//   v' = v + a DT scaled to speed in [v_min, v_max] (a zero v' keeps v),  x' = wrap(x + v' DT).
// Two neighbour searches: "grid" (a uniform grid of cells of side >= reach, counting sort
// that also copies the agents into cell order, 3 x 3 block per boid: what a careful JS
// author writes) and "naive" (every pair, O(N^2)).  Typed arrays, no allocation inside a step.
// The constants come from the request (peers.py reads them from swarmlab.boids.Params and
// cos_half_view), so the two cannot drift apart.
//
// Requests: {"cmd": "step", "x": [[..]], "v": [[..]], "W", "H", "p": {...}, "method"}
//           -> {"x", "v"} after one step (the equivalence check);
//           {"cmd": "bench", "sizes": [..], "neighbours": 10, "p": {...}, "budget": s,
//            "naive_max": N, "methods": ["grid", "naive"]} -> {"grid": {N: s/step}, "naive": {N: s/step}}.
// peers.py asks for one size and one method per process: V8 specialises the step's code to the
// first size it runs, and a later size in the same process ran up to 1.45x slower.
import { readFileSync } from "node:fs";

function makeStepper(n, W, H, p) {
  const reach = Math.max(p.radius, p.sep_radius, p.coh_radius), reach2 = reach * reach;
  const nx = Math.max(1, Math.floor(W / reach)), ny = Math.max(1, Math.floor(H / reach));
  const cw = W / nx, ch = H / ny;
  const ncell = nx * ny;
  const head = new Int32Array(ncell + 1), order = new Int32Array(n), cellOf = new Int32Array(n);
  const ax = new Float64Array(n), ay = new Float64Array(n);
  const ux = new Float64Array(n), uy = new Float64Array(n);
  const all = p.view >= 360, cosHalf = p.cos_half;
  const useSep = p.k_sep > 0, useAli = p.k_ali > 0, useCoh = p.k_coh > 0;
  // acc: separation (0, 1), alignment sum of v_j (2, 3) and count (4), cohesion sum of d (5, 6) and count (7)
  const acc = new Float64Array(8);

  function pairTerm(i, j, x, y, vx, vy, hx, hy) {
    let dx = x[j] - x[i];
    dx -= W * Math.floor(dx / W + 0.5);
    let dy = y[j] - y[i];
    dy -= H * Math.floor(dy / H + 0.5);
    const r2 = dx * dx + dy * dy;
    if (r2 > reach2) return;
    const r = Math.sqrt(r2);
    if (!all && !(hx[i] * dx + hy[i] * dy >= cosHalf * r)) return;  // behind: not in view
    if (useSep && r <= p.sep_radius) {
      const w = -1.0 / (r * r + p.EPS);
      acc[0] += dx * w; acc[1] += dy * w;
    }
    if (useAli && r <= p.radius) { acc[2] += vx[j]; acc[3] += vy[j]; acc[4] += 1; }
    if (useCoh && r <= p.coh_radius) { acc[5] += dx; acc[6] += dy; acc[7] += 1; }
  }

  // steering towards (qx, qy) for a boid with velocity (vx, vy), into out[0..1]
  const st = new Float64Array(2);
  function steer(qx, qy, vx, vy) {
    const s = Math.sqrt(qx * qx + qy * qy);
    if (!(s > 0)) { st[0] = 0; st[1] = 0; return; }
    let gx = qx * (p.v_max / s) - vx, gy = qy * (p.v_max / s) - vy;
    const g = Math.sqrt(gx * gx + gy * gy);
    const f = g > p.max_force ? p.max_force / (g > 0 ? g : 1) : 1;
    st[0] = gx * f; st[1] = gy * f;
  }

  // acceleration of agent i (output slot) from its sums; k indexes vx, vy
  function finishAt(i, k, vx, vy) {
    const v0 = vx[k], v1 = vy[k];
    let left = p.max_force, a0 = 0, a1 = 0;
    const take = (k_, qx, qy) => {
      steer(qx, qy, v0, v1);
      const rx = k_ * st[0], ry = k_ * st[1];
      const m = Math.sqrt(rx * rx + ry * ry);
      const t = Math.min(m, left);
      const f = t / (m > 0 ? m : 1);
      a0 += rx * f; a1 += ry * f; left -= t;
    };
    take(p.k_sep, acc[0], acc[1]);
    const ca = 1 / Math.max(acc[4], 1), cc = 1 / Math.max(acc[7], 1);
    take(p.k_ali, acc[2] * ca, acc[3] * ca);
    take(p.k_coh, acc[5] * cc, acc[6] * cc);
    ax[i] = a0; ay[i] = a1;
  }

  function headings(vx, vy, hx, hy, m) {
    for (let k = 0; k < m; k++) {
      const s = Math.sqrt(vx[k] * vx[k] + vy[k] * vy[k]), q = s > 0 ? s : 1;
      hx[k] = vx[k] / q; hy[k] = vy[k] / q;
    }
  }

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
    headings(svx, svy, ux, uy, n);
    const rx = nx >= 3 ? 1 : 0, ry = ny >= 3 ? 1 : 0;
    for (let k = 0; k < n; k++) {
      acc.fill(0);
      const i = order[k], c = cellOf[i], cx = c % nx, cy = (c - cx) / nx;
      if (rx && ry) {
        for (let oy = -1; oy <= 1; oy++) {
          const yy = (cy + oy + ny) % ny;
          for (let ox = -1; ox <= 1; ox++) {
            const cc = yy * nx + (cx + ox + nx) % nx;
            for (let m = head[cc], e = head[cc + 1]; m < e; m++) if (m !== k) pairTerm(k, m, sx, sy, svx, svy, ux, uy);
          }
        }
      } else {  // a dimension of 1 or 2 cells: the 3 x 3 block would repeat cells
        for (let m = 0; m < n; m++) if (m !== k) pairTerm(k, m, sx, sy, svx, svy, ux, uy);
      }
      finishAt(i, k, svx, svy);
    }
  }

  function accelNaive(x, y, vx, vy) {
    headings(vx, vy, ux, uy, n);
    for (let i = 0; i < n; i++) {
      acc.fill(0);
      for (let j = 0; j < n; j++) if (j !== i) pairTerm(i, j, x, y, vx, vy, ux, uy);
      finishAt(i, i, vx, vy);
    }
  }

  return function step(x, y, vx, vy, method) {
    (method === "naive" ? accelNaive : accelGrid)(x, y, vx, vy);
    const DT = p.DT;
    for (let i = 0; i < n; i++) {
      let nvx = vx[i] + ax[i] * DT, nvy = vy[i] + ay[i] * DT;
      let s = Math.sqrt(nvx * nvx + nvy * nvy);
      if (s === 0) { nvx = vx[i]; nvy = vy[i]; s = Math.sqrt(nvx * nvx + nvy * nvy); }
      const target = Math.min(Math.max(s, p.v_min), p.v_max);
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

const WARM_STEPS = 2000;   // the warm-up: this many steps (small N) ...
const WARM_SECONDS = 0.3;  // ... or this long (large N), whichever comes first

function timeSteps(n, W, H, p, method, budget) {
  const rnd = mulberry32(n);
  const x = new Float64Array(n), y = new Float64Array(n), vx = new Float64Array(n), vy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = rnd() * W; y[i] = rnd() * H;
    const a = rnd() * 2 * Math.PI; vx[i] = p.spawn_speed * Math.cos(a); vy[i] = p.spawn_speed * Math.sin(a);
  }
  const step = makeStepper(n, W, H, p);
  // Warm-up on a copy, so V8 has tiered the step up (a 45 us step at N = 80 is otherwise
  // still in its first tiers after the 200 timed steps) and the timed steps below start
  // from the same near-uniform state as the Python side's.
  const cx = x.slice(), cy = y.slice(), cvx = vx.slice(), cvy = vy.slice();
  for (let k = 0, t0 = performance.now(); k < 2 || (k < WARM_STEPS && performance.now() - t0 < 1000 * WARM_SECONDS); k++) {
    step(cx, cy, cvx, cvy, method);
  }
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
    const methods = req.methods || ["grid", "naive"];
    if (methods.includes("grid")) out.grid[n] = timeSteps(n, W, H, req.p, "grid", req.budget);
    if (methods.includes("naive") && n <= req.naive_max) out.naive[n] = timeSteps(n, W, H, req.p, "naive", req.budget);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} else {
  process.stderr.write(`unknown cmd ${req.cmd}\n`);
  process.exit(2);
}
