// The heading colour wheel of the stages (Lab 2's arrows, Lab 3's boids) and of its legend,
// written once.  A heading θ (radians, counter-clockwise from east, as the engine measures it)
// gets the hue θ + 180°: west red, south yellow-green, east cyan, north violet.  Stages draw
// in `bins` steps (one fill style per bin, made once: nothing per frame).

import { PROJECTOR_FILTER, projectorColours } from "./look.js";

const TAU = 2 * Math.PI;

/** The wheel's lightness (HSL %) on the dark sky (#0b1d2a), the same on both stages and their
 *  legend: the 24 bins' weakest contrast there is 5.6:1 at 74 % (3.4-3.8:1 at 64-66 %).  The
 *  projector colours take projectorLightness instead (tests/browser/test_access.py reads both
 *  from the painted pixels). */
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

/** The projector palette's contrast against the white it is shown on (WCAG: 4.5:1 for text,
 *  3:1 for marks; tests/browser/test_access.py reads it from the painted pixels). */
export const PROJECTOR_CONTRAST = 4.5;

/** sRGB (0-1) of hsl(h, s, l) (h degrees, s and l 0-1). */
export function hslRgb(h, s, l) {
  const a = s * Math.min(l, 1 - l);
  const f = (n) => { const k = (n + h / 30) % 12; return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)); };
  return [f(0), f(8), f(4)];
}

/** A colour through the projector theme's filter (look.js PROJECTOR_FILTER: invert, hue-rotate,
 *  contrast, brightness; each as the Filter Effects spec defines it on sRGB values, as browsers
 *  apply them; checked against painted pixels in tests/browser/test_access.py). */
export function projected([r, g, b]) {
  const clamp = (v) => Math.min(1, Math.max(0, v));
  const { invert, hueRotate, contrast, brightness } = PROJECTOR_FILTER;
  const [ir, ig, ib] = [r, g, b].map((v) => v + invert * (1 - 2 * v));
  const a = (hueRotate * Math.PI) / 180, c = Math.cos(a), s = Math.sin(a);
  const m = [  // the spec's hue-rotate matrix
    [0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928],
    [0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283],
    [0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072],
  ];
  return m.map(([x, y, z]) => clamp(x * ir + y * ig + z * ib))
    .map((v) => clamp(clamp((v - 0.5) * contrast + 0.5) * brightness));
}

/** WCAG relative luminance of an sRGB colour (channels 0-1). */
export function luminance(rgb) {
  const lin = (v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
}

/** WCAG contrast of an sRGB colour (0-1) against white. */
export function contrastOnWhite(rgb) {
  return 1.05 / (luminance(rgb) + 0.05);
}

/** WCAG contrast between two sRGB colours (0-1), whichever is lighter. */
export function contrast(a, b) {
  const ya = luminance(a), yb = luminance(b);
  return (Math.max(ya, yb) + 0.05) / (Math.min(ya, yb) + 0.05);
}

/** The lightness (%) of hue `h` in the projector palette: the least that, through the filter,
 *  stands PROJECTOR_CONTRAST from white.  The dark palette's one lightness turned yellows and
 *  greens near black there (13-21:1); this keeps every hue a colour. */
export function projectorLightness(h) {
  let lo = 0, hi = 100;  // through the filter, contrast grows with the lightness drawn
  for (let k = 0; k < 24; k++) {
    const mid = (lo + hi) / 2;
    if (contrastOnWhite(projected(hslRgb(h, 0.85, mid / 100))) >= PROJECTOR_CONTRAST) hi = mid; else lo = mid;
  }
  return Math.ceil(hi * 10) / 10;
}

/** The fill style of hue `h` (degrees): the dark stage's, or the projector palette's. */
function headingStyle(h, projector) {
  return `hsl(${h} 85% ${projector ? projectorLightness(h) : HEADING_LIGHTNESS}%)`;
}

/** One fill style per bin, at the middle of its hues; `projector`: the projector palette. */
export function headingStyles(bins, projector = false) {
  return Array.from({ length: bins }, (_, k) => headingStyle(((k + 0.5) * 360) / bins, projector));
}

/** A stage's palette: both sets made once, and a function that gives the one the page's look
 *  asks for now (the dark sky's, or the projector's; read per frame, nothing allocated). */
export function headingPalette(bins) {
  const sets = [headingStyles(bins), headingStyles(bins, true)];
  return () => sets[projectorColours() ? 1 : 0];
}

/** A CSS conic-gradient for the legend's swatch: each direction of the disc has the colour of
 *  an arrow pointing that way on the stage (screen y points down, so counter-clockwise on the
 *  screen is counter-clockwise in the model). */
export function headingWheel(projector = false) {
  const stops = [];
  for (let a = 0; a <= 360; a += 30) {       // CSS: a degrees clockwise from the top
    const theta = ((90 - a) * Math.PI) / 180; // the same direction as a model heading
    stops.push(`${headingStyle(headingHue(theta), projector)} ${a}deg`);
  }
  return `conic-gradient(${stops.join(", ")})`;
}
