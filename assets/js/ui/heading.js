// The heading colour wheel of the stages (Lab 2's arrows, Lab 3's boids) and of its legend,
// written once.  A heading θ (radians, counter-clockwise from east, as the engine measures it)
// gets the hue θ + 180°: west red, south yellow-green, east cyan, north violet.  Stages draw
// in `bins` steps (one fill style per bin, made once: nothing per frame).

const TAU = 2 * Math.PI;

/** The wheel's lightness (HSL %), the same on both stages and their legend.  Measured on the
 *  stages' dark sky (#0b1d2a) and, through the projector theme's inverting filter, on white:
 *  the 24 bins' weakest contrast is 5.6:1 and 4.3:1 at 74 %; at 64-66 % it was 3.4-3.8:1 and
 *  2.4-2.7:1 (violet to pink under 3:1 on a projector: tests/browser/test_access.py). */
export const HEADING_LIGHTNESS = 74;

/** The bin (0 … bins − 1) of heading `theta`: hue bins of 360/bins degrees, west first. */
export function headingBin(theta, bins) {
  let b = Math.floor(((theta + Math.PI) / TAU) * bins) % bins;
  if (b < 0) b += bins;
  return b;
}

/** The hue (degrees) of heading `theta`. */
export function headingHue(theta) {
  return ((theta * 180) / Math.PI + 540) % 360;
}

/** One fill style per bin, at the middle of its hues. */
export function headingStyles(bins) {
  return Array.from({ length: bins }, (_, k) => `hsl(${((k + 0.5) * 360) / bins} 85% ${HEADING_LIGHTNESS}%)`);
}

/** A CSS conic-gradient for the legend's swatch: each direction of the disc has the colour of
 *  an arrow pointing that way on the stage (screen y points down, so counter-clockwise on the
 *  screen is counter-clockwise in the model). */
export function headingWheel() {
  const stops = [];
  for (let a = 0; a <= 360; a += 30) {       // CSS: a degrees clockwise from the top
    const theta = ((90 - a) * Math.PI) / 180; // the same direction as a model heading
    stops.push(`hsl(${headingHue(theta)} 85% ${HEADING_LIGHTNESS}%) ${a}deg`);
  }
  return `conic-gradient(${stops.join(", ")})`;
}
