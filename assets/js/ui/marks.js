// Marks that differ by shape as well as by colour, so that a class stays readable for
// colour-blind students, in greyscale print and under forced colours.
//
//   disc    a filled circle
//   square  a filled square (same area as the disc)
//   ring    a hollow circle (outline only)
//   diamond a filled square turned 45 degrees

export const MARK_SHAPES = ["disc", "square", "ring", "diamond"];

/**
 * Draw one mark of radius r (CSS px) centred on (x, y).
 * @param {CanvasRenderingContext2D} g
 * @param {string} shape  one of MARK_SHAPES
 * @param {string} color  fill (disc, square, diamond) or stroke (ring)
 */
export function drawMark(g, x, y, r, shape, color) {
  g.beginPath();
  if (shape === "square") {
    const h = r * 0.886; // half side: a square of the disc's area (sqrt(pi) / 2)
    g.rect(x - h, y - h, 2 * h, 2 * h);
  } else if (shape === "diamond") {
    const h = r * 1.25;
    g.moveTo(x, y - h); g.lineTo(x + h, y); g.lineTo(x, y + h); g.lineTo(x - h, y); g.closePath();
  } else {
    g.arc(x, y, shape === "ring" ? Math.max(1, r - 0.9) : r, 0, Math.PI * 2);
  }
  if (shape === "ring") {
    g.strokeStyle = color;
    g.lineWidth = 1.8;
    g.stroke();
  } else {
    g.fillStyle = color;
    g.fill();
  }
}
