// Small DOM and text helpers shared by the labs.

/** Add a stylesheet once (a lab's own CSS, loaded when the lab mounts). */
export function ensureStylesheet(href) {
  if (document.querySelector(`link[rel="stylesheet"][href="${href}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.append(link);
}

/** The device pixel ratio used for canvases, clamped to [1, 3]. */
export function pixelRatio() {
  return Math.max(1, Math.min(3, window.devicePixelRatio || 1));
}

/**
 * Size a canvas's backing store for a CSS size at the device pixel ratio, so lines
 * stay crisp on high-DPI screens.  Touches the canvas only when the size changed
 * (assigning width/height clears it).  Returns the ratio used.
 */
export function fitCanvas(canvas, cssW, cssH) {
  const dpr = pixelRatio();
  const pw = Math.round(cssW * dpr);
  const ph = Math.round(cssH * dpr);
  if (canvas.width !== pw || canvas.height !== ph) {
    canvas.width = pw;
    canvas.height = ph;
  }
  return dpr;
}

/** "1 boid", "3 boids": a count with the word in the right number. */
export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
