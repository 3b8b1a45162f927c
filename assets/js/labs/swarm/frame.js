// Reading the Swarm Lab frame buffer (float32, flat) written by
// app/swarmlab/sessions/swarm.py::SwarmSession.frame().  The layout is documented
// in that module's docstring; this is the only place the page depends on it:
//
//   header (HEADER = 8): [0] N  [1] t (s)  [2] threat active (0/1)  [3] threat x  [4] threat y
//                        [5] selected index (-1 none)  [6] obstacle code (0 none, 1 circle, 2 passage)
//                        [7] paused at the five-minute limit (0/1)
//   then N records of STRIDE = 3 floats: x, y (lengths, y up), theta (rad, counter-clockwise from +x)
//
// parseFrame fills and returns the SAME object every time (no allocation per frame).
// The step number is recovered from t (float32 keeps t * 60 within 1e-3 of an
// integer far beyond the five-minute limit) and t is recomputed from it in float64.

export const HEADER = 8;
export const STRIDE = 3;
export const OBSTACLE_NAMES = ["none", "circle", "passage"];

export function createFrameInfo() {
  return {
    n: 0, t: 0, step: 0, selected: -1,
    threatActive: false, threatX: 0, threatY: 0, threatRadius: 22,
    obstacle: "none", atLimit: false,
    offset: HEADER, stride: STRIDE,
  };
}

export function parseFrame(data, length, f, dt = 1 / 60) {
  if (length < HEADER) { f.n = 0; return f; }
  f.n = Math.max(0, Math.round(data[0]));
  f.step = Math.round(data[1] / dt);
  f.t = f.step * dt;
  f.threatActive = data[2] > 0.5;
  f.threatX = data[3];
  f.threatY = data[4];
  f.selected = Math.round(data[5]);
  f.obstacle = OBSTACLE_NAMES[Math.round(data[6])] || "none";
  f.atLimit = data[7] > 0.5;
  f.offset = HEADER;
  f.stride = STRIDE;
  if (f.offset + f.stride * f.n > length) f.n = Math.max(0, Math.floor((length - f.offset) / f.stride));
  return f;
}
