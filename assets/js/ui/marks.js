// Marks that differ by shape as well as by colour, so that a class stays readable for
// colour-blind students, in greyscale print and under forced colours: point marks
// (drawMark) and arrows with their own dash and head (drawArrow).
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

export const ARROW_HEADS = ["triangle", "open", "double"];

const NO_DASH = [];
const SCALED_DASH = new WeakMap(); // style -> {width, dash}: its dash in px, kept between frames

/** `style`'s dash pattern scaled to a line `width` px wide (recomputed only when the width changes). */
function scaledDash(style, width) {
  if (!style.dash || !style.dash.length) return NO_DASH;
  let c = SCALED_DASH.get(style);
  if (!c || c.width !== width) {
    c = { width, dash: style.dash.map((d) => d * width) };
    SCALED_DASH.set(style, c);
  }
  return c.dash;
}

/** A filled arrowhead with its tip at (tx, ty), pointing along `ang`, `head` px long. */
function headTriangle(g, tx, ty, ang, head) {
  g.beginPath();
  g.moveTo(tx, ty);
  g.lineTo(tx - head * Math.cos(ang - 0.45), ty - head * Math.sin(ang - 0.45));
  g.lineTo(tx - head * Math.cos(ang + 0.45), ty - head * Math.sin(ang + 0.45));
  g.closePath();
  g.fill();
}

/**
 * Draw an arrow from (x0, y0) to (x1, y1) (CSS px) in `style` = {color, dash, head, weight}:
 *   dash  the line's dash pattern in line widths ([] solid; [0.6, 1.4] dotted with round caps)
 *   head  "triangle" (filled), "open" (a chevron of two strokes) or "double" (two triangles)
 *   weight  the line width is `width` times this (default 1)
 * The head is at most 8 px x sqrt(weight) (half the arrow for a short one); the line stops under it.
 */
export function drawArrow(g, x0, y0, x1, y1, style, width = 2.5) {
  const weight = style.weight || 1;
  width *= weight;
  const ang = Math.atan2(y1 - y0, x1 - x0);
  const len = Math.hypot(x1 - x0, y1 - y0);
  const head = Math.min(8 * Math.sqrt(weight), len * 0.5);
  const c = Math.cos(ang), s = Math.sin(ang);
  const back = style.head === "double" ? 1.6 * head : style.head === "open" ? 0.15 * head : 0.6 * head;
  g.strokeStyle = style.color;
  g.fillStyle = style.color;
  g.lineWidth = width;
  const dash = scaledDash(style, width);
  g.setLineDash(dash);
  g.lineCap = dash.length && style.dash[0] < 1 ? "round" : "butt";
  g.beginPath();
  g.moveTo(x0, y0);
  g.lineTo(x1 - back * c, y1 - back * s);
  g.stroke();
  g.setLineDash(NO_DASH);
  g.lineCap = "butt";
  if (style.head === "open") {
    g.beginPath();
    g.moveTo(x1 - head * Math.cos(ang - 0.6), y1 - head * Math.sin(ang - 0.6));
    g.lineTo(x1, y1);
    g.lineTo(x1 - head * Math.cos(ang + 0.6), y1 - head * Math.sin(ang + 0.6));
    g.lineJoin = "miter";
    g.stroke();
  } else {
    headTriangle(g, x1, y1, ang, head);
    if (style.head === "double") headTriangle(g, x1 - head * c, y1 - head * s, ang, head); // a second head right behind the first
  }
}
