// How the stages look, apart from the model: the access bar's two display choices, which every
// renderer reads when it draws (numbers and flags read per frame: nothing allocated, no DOM read).
//
//   "Larger shapes" (shapes=large): every lab's animals, arrows and boids drawn LARGE_SHAPES
//     times their usual size, for a projected classroom screen or a student who sees them
//     better large.
//   "Projector colours" (theme=projector): a light stage.  The stages are drawn for their dark
//     sky and shown through PROJECTOR_FILTER (access.css reads it as --projector-filter); the
//     heading colours take their projector palette then (ui/heading.js), made for that filter.
//
// The drawing only: the model, its ranges and every measurement are unchanged.

export const LARGE_SHAPES = 1.8;

/** Every stage's dark sky (app.css's --stage is the same colour, for the page around it). */
export const SKY = "#0b1d2a";
/** The faint grid some stages draw as a scale, about 1.2:1 against the sky in each look: the
 *  projector filter flattens light greys, so it takes a stronger white there to look as faint
 *  on white (tests/js/vicsek_stage.test.mjs computes both through ui/heading.js projected()). */
export const GRID = { dark: "rgba(255, 255, 255, 0.06)", projector: "rgba(255, 255, 255, 0.15)" };

/** The projector theme's CSS filter: the dark stage inverted, its hues turned back, with a
 *  little more contrast and light for a washed-out screen (heading.js computes through it). */
export const PROJECTOR_FILTER = { invert: 1, hueRotate: 180, contrast: 1.4, brightness: 1.06 };
export const PROJECTOR_FILTER_CSS = `invert(${PROJECTOR_FILTER.invert}) hue-rotate(${PROJECTOR_FILTER.hueRotate}deg) ` +
  `contrast(${PROJECTOR_FILTER.contrast}) brightness(${PROJECTOR_FILTER.brightness})`;

let factor = 1;
let projector = false;
const listeners = new Set();

function changed() {
  for (const fn of listeners) fn();
}

/** The glyphs' size factor: 1, or LARGE_SHAPES while "Larger shapes" is on. */
export function shapeScale() {
  return factor;
}

/** Whether the larger shapes are on. */
export const largeShapes = () => factor !== 1;

/** Turn the larger shapes on or off (the page's mark: html[data-shapes=large]). */
export function setLargeShapes(on) {
  const was = factor;
  factor = on ? LARGE_SHAPES : 1;
  if (typeof document !== "undefined") {  // (Node's tests draw without a page)
    if (on) document.documentElement.dataset.shapes = "large";
    else delete document.documentElement.dataset.shapes;
  }
  if (factor !== was) changed();
}

/** Whether the projector colours are on. */
export const projectorColours = () => projector;

/** The grid's colour in the look now on. */
export const gridColour = () => (projector ? GRID.projector : GRID.dark);

/** Turn the projector colours on or off (the page's mark: html[data-theme=projector]). */
export function setProjectorColours(on) {
  const was = projector;
  projector = Boolean(on);
  if (typeof document !== "undefined") {
    document.documentElement.style.setProperty("--projector-filter", PROJECTOR_FILTER_CSS);
    if (on) document.documentElement.dataset.theme = "projector";
    else delete document.documentElement.dataset.theme;
  }
  if (projector !== was) changed();
}

/** Call `fn` whenever the look changes (a lab redraws its stage, also while paused); returns
 *  the function that stops it (a lab rebuilt after an engine restart drops its old drawing). */
export function onLookChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
