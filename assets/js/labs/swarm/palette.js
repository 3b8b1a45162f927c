// Lab 1's colours, in one place: the stage (renderer.js), the "What can I sense?" panel
// (panel.js) and their legends all read them here, so a legend never disagrees with a drawing.
//
// Each steering arrow has its own hue, and none is the selected animal's yellow: the
// alignment arrow used to share it.  (Shapes for colour-blind readers are issue #15's.)
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
