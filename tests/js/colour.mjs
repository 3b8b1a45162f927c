// Colour helpers for the Node tests that check a stage's contrast (the WCAG formulas themselves
// are the page's: ui/heading.js luminance / contrast / projected).

/** "#rrggbb" as sRGB channels 0-1. */
export const hex = (h) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16) / 255);

/** The sRGB (0-1) a canvas colour shows painted over `ground` (sRGB 0-1): "#rrggbb" covers it,
 *  "rgba(r, g, b, a)" is blended with it. */
export function over(colour, ground) {
  if (colour.startsWith("#")) return hex(colour);
  const [r, g, b, a] = colour.match(/[\d.]+/g).map(Number);
  return [r, g, b].map((v, k) => a * (v / 255) + (1 - a) * ground[k]);
}
