// What every lab shows of its run (assets/js/ui/run.js), without a browser: the Play/Pause
// button's words and state, the readouts as the session's specs format them, and the words
// of a frame's request and reply.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PlayButton, Readouts, readoutRowHtml, frameOps, eachResult } from "../../assets/js/ui/run.js";

/** An element with just what run.js touches. */
function fakeNode() {
  const attrs = {};
  let writes = 0;
  let text = "";
  return {
    dataset: {},
    setAttribute: (k, v) => { attrs[k] = String(v); },
    getAttribute: (k) => attrs[k],
    get textContent() { return text; },
    set textContent(v) { text = v; writes++; },
    get writes() { return writes; },
  };
}

test("PlayButton: the words and aria-label follow the state, and data-playing is 1 or 0", () => {
  const button = fakeNode(), section = fakeNode();
  const play = new PlayButton(button, section, "the stage");
  play.show(true);
  assert.equal(button.textContent, "Pause");
  assert.equal(button.getAttribute("aria-label"), "Pause the stage");
  assert.equal(section.dataset.playing, "1");
  play.show(false);
  assert.equal(button.textContent, "Play");
  assert.equal(button.getAttribute("aria-label"), "Play the stage");
  assert.equal(section.dataset.playing, "0");
});

test("Readouts: each row as its spec formats it, a note after a value, unchanged text not rewritten", () => {
  const specs = [
    { key: "P", label: "shared heading P", decimals: 2 },
    { key: "very_close", label: "very close", unit: "%", decimals: 0, scale: 100 },
    { key: "flocks", label: "flocks", decimals: 0 },
  ];
  const html = specs.map((r) => readoutRowHtml(r, "bd")).join("");
  assert.match(html, /<div class="readout" data-key="P"><span class="k">shared heading P<\/span><span class="v bd-P">–<\/span><\/div>/);
  // a label is text, not markup ("share < 1 length & more" must not open a tag)
  assert.match(readoutRowHtml({ key: "k", label: "share < 1 length & more" }, "x"),
    /<span class="k">share &#60; 1 length &#38; more<\/span>/);
  const nodes = Object.fromEntries(specs.map((r) => [r.key, fakeNode()]));
  const box = { querySelector: (sel) => nodes[/data-key="([^"]+)"/.exec(sel)[1]] };
  const readouts = new Readouts(box, specs);
  readouts.show({ P: 0.4567, very_close: 0.125, flocks: 2 }, { flocks: "69 in small or mixed groups" });
  assert.equal(nodes.P.textContent, "0.46");
  assert.equal(nodes.very_close.textContent, "13 %");
  assert.equal(nodes.flocks.textContent, "2 (69 in small or mixed groups)");
  readouts.show({ P: 0.4567, very_close: NaN, flocks: 2 }, { flocks: "69 in small or mixed groups" });
  assert.equal(nodes.very_close.textContent, "–", "no value reads as a dash");
  assert.equal(nodes.P.writes, 1, "the same text is not written again (screen readers, layout)");
  assert.equal(readouts.spec("flocks").label, "flocks");
});

test("frameOps: the steps first (none at n = 0), the lab's reads, then the metrics when due", () => {
  const hist = ["history", { since: 3 }];
  assert.deepEqual(frameOps(4, [hist], { metrics: true }), [["step", { n: 4 }], hist, ["metrics", {}]]);
  assert.deepEqual(frameOps(0, [["selected", {}], hist]), [["selected", {}], hist]);
});

test("eachResult: values to their op's handler, failures to onError, other ops skipped", () => {
  const reply = {
    ops: [["step", { n: 2 }], ["history", {}], ["neighbours", { i: 3 }], ["state", {}]],
    results: [{ value: { P: 0.5 }, ms: 1 }, { value: { t: [] } }, { error: "i out of range" }, { value: 7 }],
  };
  const seen = [];
  eachResult(reply, {
    step: (v, op, r) => seen.push(["step", v.P, op[1].n, r.ms]),
    history: (v) => seen.push(["history", v.t.length]),
    neighbours: () => seen.push(["neighbours called"]),
  }, (error, op) => seen.push(["error", op[0], error]));
  assert.deepEqual(seen, [["step", 0.5, 2, 1], ["history", 0], ["error", "neighbours", "i out of range"]]);
});
