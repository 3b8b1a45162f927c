// Reading a session's float32 frame buffer through the layout the session publishes
// (app/swarmlab/sessions/base.py, FrameLayout, via op_layout): no lab hard-codes offsets.
//
//   layout = {header: [names], fields: [names], blocks, stride, offset, count, clock}
//   header value `name`:            data[h.name]           (h = headerIndex(layout))
//   N and model time t:             data[count], data[clock] (the header fields the layout names)
//   agent a, field f, block b:      data[offset + (b * N + a) * stride + f]

/** {name: index} for the header fields, plus `offset`, `stride`, {name: index} for fields and
 *  `count` / `clock`: where N and the model time sit in the header. */
export function frameIndex(layout) {
  const h = {};
  layout.header.forEach((name, k) => { h[name] = k; });
  const f = {};
  layout.fields.forEach((name, k) => { f[name] = k; });
  return { h, f, offset: layout.offset, stride: layout.stride, blocks: layout.blocks || 1,
           count: layout.count, clock: layout.clock };
}

/** Number of complete agent records in a frame of `length` floats (never more than the header says). */
export function frameCount(index, data, length) {
  if (!data || length < index.offset) return 0;
  const n = Math.max(0, Math.round(data[index.count]));
  const fits = Math.floor((length - index.offset) / (index.stride * index.blocks));
  return Math.min(n, fits);
}

/** The integer step of a frame whose clock field holds t = step * dt (float32 keeps this exact). */
export function frameStep(index, data, dt) {
  return Math.round(data[index.clock] / dt);
}
