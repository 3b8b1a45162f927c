// What every lab shows of its run, written once: how it opens its session, the Play/Pause
// button, the readouts, and the words of a frame's request and of its reply.
//
//   const { engine, specs, layout, fx, minimal } = await openLab(ctx, LAB, "assets/css/x.css");
//   const play = new PlayButton(button, section, "the stage");  play.show(playing);
//   const readouts = new Readouts(box, display.readouts);       readouts.show(metrics);
//   stepper.compose = (n) => frameOps(n, [hist.op()], { metrics: stepper.readsDue(n) });
//   eachResult(reply, { history: (h) => ..., metrics: (m) => ... }, (error) => notify(error));
//
// The readouts' words and number formats are the session's (layout().display.readouts:
// {key, label, unit, decimals, scale}); the page writes them, it does not keep its own.

import { formatReadout } from "./controls.js";
import { ensureStylesheet, escapeHtml, setText } from "./dom.js";
import { frameIndex } from "./frame.js";

/** What every lab asks first: its stylesheet, and its session's parameter specs and layout (both
 *  asked at once), read into {engine, specs, layout, fx (the frame index: ui/frame.js), consts,
 *  display, minimal (the page's controls=minimal)}. */
export async function openLab(ctx, lab, stylesheet) {
  ensureStylesheet(stylesheet);
  const engine = ctx.engine;
  const [specs, layout] = await Promise.all([engine.spec(lab), engine.layout(lab)]);
  return { engine, specs, layout, fx: frameIndex(layout.frame), consts: layout.constants, display: layout.display,
           minimal: ctx.params.get("controls") === "minimal" };
}

/** The lab's Play/Pause button.  Its state is also on the lab's section as data-playing
 *  ("1" or "0"), which ui/access.js (the automatic summaries) and the tests read. */
export class PlayButton {
  /** `what` completes the button's name: "Pause the simulation", "Play the stage". */
  constructor(button, section, what) {
    Object.assign(this, { button, section, what });
  }
  show(playing) {
    this.button.textContent = playing ? "Pause" : "Play";
    this.button.setAttribute("aria-label", `${playing ? "Pause" : "Play"} ${this.what}`);
    this.section.dataset.playing = playing ? "1" : "0";
  }
}

/** One readout row, as every lab lays them out: its value's span also has the class
 *  `${prefix}-${key}` (the lab's styles and tests name it); `attrs` are more attributes of
 *  the row, already escaped (e.g. a title). */
export const readoutRowHtml = (r, prefix, attrs = "") =>
  `<div class="readout" data-key="${escapeHtml(r.key)}"${attrs}><span class="k">${escapeHtml(r.label)}</span>` +
  `<span class="v ${prefix}-${escapeHtml(r.key)}">–</span></div>`;

/** The readouts under `box`: one row per Readout spec (readoutRowHtml), filled by show(). */
export class Readouts {
  constructor(box, specs) {
    this.specs = specs;
    this.rows = specs.map((r) => [r, box.querySelector(`.readout[data-key="${r.key}"] .v`)]);
  }
  /** The spec of readout `key` (its unit and format: e.g. the rules panel's clock). */
  spec(key) { return this.specs.find((r) => r.key === key); }
  /** Write `values` (key -> number) as the specs format them; `more` adds words after a value
   *  (key -> text, e.g. where the boids outside the flocks are).  Text that did not change is
   *  not written again. */
  show(values, more = {}) {
    for (const [r, node] of this.rows) {
      const text = formatReadout(r, values[r.key]);
      setText(node, more[r.key] ? `${text} (${more[r.key]})` : text);
    }
  }
}

/** The ops of one frame's request: `n` model steps (none when n is 0), then what the lab reads
 *  every frame, then the readouts' metrics when the stepper says they are due. */
export function frameOps(n, reads, { metrics = false } = {}) {
  const ops = n > 0 ? [["step", { n }]] : [];
  ops.push(...reads);
  if (metrics) ops.push(["metrics", {}]);
  return ops;
}

/** Hand each result of a reply to the handler of its op's name, as handler(value, op, result);
 *  an op that failed goes to `onError(message, op, result)` instead.  Ops without a handler
 *  are skipped. */
export function eachResult(reply, handlers, onError) {
  reply.ops.forEach((op, k) => {
    const r = reply.results[k] || {};
    if (r.error !== undefined) { onError(r.error, op, r); return; }
    const handle = handlers[op[0]];
    if (handle) handle(r.value, op, r);
  });
}
