// "Larger shapes": the access bar's toggle (and shapes=large in the address) draws every lab's
// animals, arrows and boids LARGE_SHAPES times their usual size, for a projected classroom
// screen or a student who sees them better large.  The drawing only: the model, its ranges and
// every measurement are unchanged.  Each renderer multiplies its glyph length by shapeScale()
// when it draws (a number read per frame: nothing allocated, no DOM read).

export const LARGE_SHAPES = 1.8;

let factor = 1;
const listeners = new Set();

/** The glyphs' size factor: 1, or LARGE_SHAPES while "Larger shapes" is on. */
export function shapeScale() {
  return factor;
}

/** Turn the larger shapes on or off (the page's mark: html[data-shapes=large]). */
export function setLargeShapes(on) {
  const was = factor;
  factor = on ? LARGE_SHAPES : 1;
  if (typeof document !== "undefined") {  // (Node's tests draw without a page)
    if (on) document.documentElement.dataset.shapes = "large";
    else delete document.documentElement.dataset.shapes;
  }
  if (factor !== was) for (const fn of listeners) fn();
}

/** Call `fn` whenever the shapes change size (a lab redraws its stage, also while paused). */
export function onShapesChange(fn) {
  listeners.add(fn);
}

/** Whether the larger shapes are on. */
export const largeShapes = () => factor !== 1;
