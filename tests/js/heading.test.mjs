// The heading colour wheel (ui/heading.js): the stages' bins and the legend's disc agree,
// direction by direction (the legend's disc was once mirrored east-west against the stage).
import { test } from "node:test";
import assert from "node:assert/strict";

import { headingBin, headingHue, headingStyles, headingWheel } from "../../assets/js/ui/heading.js";

const hueOf = (style) => Number(/hsl\(([-\d.]+)/.exec(style)[1]);
const apart = (a, b) => Math.abs(((a - b + 540) % 360) - 180);

test("west is red, east cyan, north violet, south yellow-green", () => {
  assert.equal(headingHue(Math.PI), 0);
  assert.equal(headingHue(0), 180);
  assert.equal(headingHue(Math.PI / 2), 270);
  assert.equal(headingHue(-Math.PI / 2), 90);
});

test("a stage's bin holds its heading's hue, for any turn of the angle", () => {
  for (const bins of [24, 36]) {
    const styles = headingStyles(bins);
    for (let k = -400; k <= 400; k++) {
      const theta = (k / 100) * Math.PI * 1.37;
      const b = headingBin(theta, bins);
      assert.ok(b >= 0 && b < bins, `${theta} -> ${b}`);
      assert.ok(apart(hueOf(styles[b]), headingHue(theta)) <= 180 / bins + 1e-9, `${theta}`);
    }
  }
});

test("the legend's disc shows, in each direction, the colour of an arrow pointing that way", () => {
  const stops = [...headingWheel().matchAll(/hsl\(([-\d.]+) [^)]*\) ([-\d.]+)deg/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.equal(stops[0][1], 0);
  assert.equal(stops[stops.length - 1][1], 360);
  const at = (deg) => stops.find(([, a]) => a === deg)[0];
  // CSS angles run clockwise from the top: 90deg is east on the screen, 180deg south
  assert.equal(at(90), headingHue(0));             // east
  assert.equal(at(270), headingHue(Math.PI));      // west
  assert.equal(at(0), headingHue(Math.PI / 2));    // north (screen up)
  assert.equal(at(180), headingHue(-Math.PI / 2)); // south
});
