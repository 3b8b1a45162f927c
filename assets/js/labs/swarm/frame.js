// Reading the Swarm Lab frame buffer written by app/swarmlab/sessions/swarm.py::SwarmSession.frame().
// The offsets come from the layout the session publishes (op_layout -> ui/frame.js frameIndex):
//   header: n, t, threat_on, threat_x, threat_y, selected, obstacle, at_limit
//   records: x, y (lengths, y up), theta (rad, counter-clockwise from +x)
//
// parseFrame fills and returns the SAME object every time (no allocation per frame).
// The step number is recovered from t (float32 keeps t * 60 within 1e-3 of an
// integer far beyond the five-minute limit) and t is recomputed from it in float64.

import { frameCount, frameStep } from "../../ui/frame.js";

export function createFrameInfo(index) {
  return {
    n: 0, t: 0, step: 0, selected: -1,
    threatActive: false, threatX: 0, threatY: 0, threatRadius: 0,
    obstacle: "none", atLimit: false,
    offset: index.offset, stride: index.stride,
    // a record's fields, from the layout: agent a's x is data[offset + stride * a + X]
    X: index.f.x, Y: index.f.y, TH: index.f.theta,
  };
}

/** obstacleNames[code] is the obstacle's name (from the session's constants.obstacle_codes). */
export function parseFrame(index, data, length, f, dt, obstacleNames) {
  const h = index.h;
  f.n = frameCount(index, data, length);
  if (length < index.offset) return f;
  f.step = frameStep(index, data, dt);
  f.t = f.step * dt;
  f.threatActive = data[h.threat_on] > 0.5;
  f.threatX = data[h.threat_x];
  f.threatY = data[h.threat_y];
  f.selected = Math.round(data[h.selected]);
  f.obstacle = obstacleNames[Math.round(data[h.obstacle])] || "none";
  f.atLimit = data[h.at_limit] > 0.5;
  return f;
}
