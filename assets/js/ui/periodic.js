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
