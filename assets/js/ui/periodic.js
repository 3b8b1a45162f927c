// Periodic geometry for drawing.  The model's one minimum-image rule is the engine's
// (app/swarmlab/space.py, displacement(a, b) = the vector from a to b,
// d − L·floor(d/L + 1/2) with d = b − a); views that place one agent relative to another
// (Lab 1's zoomed panel, Lab 2's trails and neighbourhood) use this copy of the same rule
// on the frame's float32 positions.  Math.round(v) is floor(v + 1/2) in JavaScript.

/** `v` wrapped into [0, L), as the engine's space.wrap (never exactly L). */
export function wrap(v, L = 1) {
  const w = v - L * Math.floor(v / L);
  return w >= L ? w - L : w;
}

/** The minimum image of a difference `d` = b − a along a periodic side of length `L`. */
export function minImage(d, L = 1) {
  return d - L * Math.round(d / L);
}

/** Where a shape is drawn in a periodic W × H box: the shape centred at (x, y), inside the box,
 *  reaching `m` from its centre, also shows across every edge it crosses.  Writes the shifts
 *  (dx, dy) of its copies into `out` (a Float64Array of 18, kept by the caller: nothing is
 *  allocated per frame), (0, 0) first, then each neighbouring image of the box the shape
 *  reaches into; returns how many (1 to 9: more than 4 only for a shape wider than half the
 *  box).  Every renderer's periodic drawing goes through here. */
export function periodicCopies(x, y, m, W, H, out) {
  out[0] = 0;
  out[1] = 0;
  let k = 1;
  for (let ox = -1; ox <= 1; ox++) {
    const cx = x + ox * W;
    if (cx + m < 0 || cx - m > W) continue;
    for (let oy = -1; oy <= 1; oy++) {
      if (ox === 0 && oy === 0) continue;
      const cy = y + oy * H;
      if (cy + m < 0 || cy - m > H) continue;
      out[2 * k] = ox * W;
      out[2 * k + 1] = oy * H;
      k++;
    }
  }
  return k;
}
