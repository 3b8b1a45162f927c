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

export const SELECTED = "#ffd24a";       // the selected animal (stage and panel)
export const THREAT = "#ff4d6d";
export const NEIGHBOURS = {
  social: "#35d0e0",                     // social neighbours (cyan)
  personal: "#ff7f66",                   // inside personal space (coral)
  excluded: "#9aa5b1",                   // nearby, not counted (grey)
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
