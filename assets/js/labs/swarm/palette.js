// Lab 1's colours, in one place: the stage (renderer.js), the "What can I sense?" panel
// (panel.js) and their legends all read them here, so a legend never disagrees with a drawing.
//
// Each steering arrow has its own hue, and none is the selected animal's yellow: the
// alignment arrow used to share it.  Hue alone is not enough (several pairs are close for
// protanopia and deuteranopia, and forced colours or a greyscale print drop it), so each
// arrow also has its own line and head (ARROW_STYLES, drawn by ui/marks.js drawArrow): no
// two arrows share both.
// The space (separation) arrow keeps the coral of the personal-space neighbours it
// pushes away from, and the threat arrow the red of the threat.

import { projectorColours } from "../../ui/look.js";

export const SELECTED = "#ffd24a";       // the selected animal (stage and panel)
export const THREAT = "#ff4d6d";
export const NEIGHBOURS = {
  social: "#35d0e0",                     // social neighbours (cyan)
  personal: "#ff7f66",                   // inside personal space (coral)
  excluded: "#9aa5b1",                   // nearby, not counted (grey)
};
// What each neighbour mark looks like, in words (the panel's name for screen readers)
export const NEIGHBOUR_WORDS = { social: "cyan discs", personal: "coral squares", excluded: "grey rings" };

/** `hex` ("#rrggbb") at opacity `a`, as a canvas colour: the see-through shades of the colours
 *  above (a threat's zone, the field of view) are made here from them, never typed again. */
export function alpha(hex, a) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}
export const SHADES = {
  selectedTrail: alpha(SELECTED, 0.85),
  threatZone: alpha(THREAT, 0.08),
  threatEdge: alpha(THREAT, 0.75),
  viewFill: alpha(NEIGHBOURS.social, 0.10),
  viewEdge: alpha(NEIGHBOURS.social, 0.45),
  viewText: alpha(NEIGHBOURS.social, 0.9),
  personalRing: alpha(NEIGHBOURS.personal, 0.8),
  nearbyRing: alpha(NEIGHBOURS.excluded, 0.45),
};

export const ARROWS = {
  separation: NEIGHBOURS.personal,
  alignment: "#5b9bff",                  // blue
  cohesion: "#7ee081",                   // green
  obstacle: "#c9a7ff",                   // lavender
  threat: THREAT,
};

// line dash (canvas setLineDash, in line widths), head shape, line weight (x the usual width)
// and the words the legend shows
export const ARROW_STYLES = {
  separation: { color: ARROWS.separation, dash: [], head: "triangle", words: "solid" },
  alignment: { color: ARROWS.alignment, dash: [3, 1.6], head: "triangle", words: "dashed" },
  cohesion: { color: ARROWS.cohesion, dash: [0.6, 1.4], head: "open", words: "dotted, open head" },
  obstacle: { color: ARROWS.obstacle, dash: [3.6, 1.2, 0.8, 1.2], head: "open", words: "dash-dot, open head" },
  threat: { color: ARROWS.threat, dash: [], head: "double", weight: 1.5, words: "thick, double head" },
};

// Through the projector filter (ui/look.js) the threat's red edge read 2.2:1 on the white
// stage; there it is drawn opaque in a lighter pink, which the filter shows as a crimson at
// 4:1 (on the dark sky the red edge stands 3.3:1; tests/js/stage.test.mjs computes both).
export const THREAT_EDGE_PROJECTOR = "#ff8095";
const THREAT_DASH = [6, 5];
const NO_DASH = [];

/** The threat as the stage and the panel both draw it, centred at (px, py) CSS px: its reach (a
 *  faint disc with a dashed edge, `reachPx` across) and its point (a white-edged red dot). */
export function drawThreat(g, px, py, reachPx, pointPx) {
  g.beginPath();
  g.arc(px, py, reachPx, 0, Math.PI * 2);
  g.fillStyle = SHADES.threatZone;
  g.fill();
  g.setLineDash(THREAT_DASH);
  g.strokeStyle = projectorColours() ? THREAT_EDGE_PROJECTOR : SHADES.threatEdge;
  g.lineWidth = 1.5;
  g.stroke();
  g.setLineDash(NO_DASH);
  g.beginPath();
  g.arc(px, py, pointPx, 0, Math.PI * 2);
  g.fillStyle = THREAT;
  g.fill();
  g.strokeStyle = "#ffffff";
  g.lineWidth = 1.5;
  g.stroke();
}
