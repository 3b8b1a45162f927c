// Placeholder lab: numpy random walkers, proving the JS -> Python -> canvas loop.
// Used for any lab whose own page module is not available yet.
import { createLoop } from "../ui/loop.js";

export function mount(section, ctx) {
  section.innerHTML = `
    <div class="lab-layout">
      <div class="stage"><canvas class="stage-canvas" width="640" height="400" aria-label="Placeholder simulation"></canvas></div>
      <div class="controls"><p>This lab is being built. The dots are numpy random walkers computed in Python each frame.</p></div>
    </div>`;
  const canvas = section.querySelector("canvas");
  const g = canvas.getContext("2d");
  let buf = new Float32Array(512);
  ctx.engine.call("demo", "reset", { n: 300 });
  const loop = createLoop(() => {
    ctx.engine.call("demo", "step", { n: 1 });
    const { data, length } = ctx.engine.frameInto("demo", buf);
    buf = data;
    g.fillStyle = "#0b1d2a";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = "#7fd3ff";
    for (let k = 0; k < length; k += 2) g.fillRect(buf[k] * canvas.width - 2, buf[k + 1] * canvas.height - 2, 4, 4);
  });
  return { activate: () => loop.start(), deactivate: () => loop.stop() };
}
