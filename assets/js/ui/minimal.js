// ?controls=minimal: the controls a lab hides for a first look, and the one button that
// shows them again.  A teacher's embed starts uncluttered, yet a text that says "raise the
// uncertainty" or "open More settings" never points at a control the student cannot reach.

import { el } from "./dom.js";

export class MinimalControls {
  /** on: the page asked for minimal controls; onChange(): after any element is shown or hidden
   *  again (a lab re-derives what depends on it, e.g. a group with every row hidden). */
  constructor(on, { onChange = () => {} } = {}) {
    this.on = on;
    this.onChange = onChange;
    this.hidden = new Set(); // hidden by minimal mode, and not shown since
    this.all = false; // "Show all settings" pressed
    this.button = null;
  }

  /** Hide ``elem`` in minimal mode (no-op otherwise). */
  hide(elem) {
    if (!this.on || !elem) return;
    elem.hidden = true;
    this.hidden.add(elem);
  }

  /** Show these elements for good, e.g. the controls that the running trial's text names.
   *  Returns whether anything was hidden. */
  reveal(elems) {
    let any = false;
    for (const e of elems) {
      if (!e || !this.hidden.delete(e)) continue;
      e.hidden = false;
      any = true;
    }
    if (any) {
      this.onChange();
      this.sync();
    }
    return any;
  }

  /** The "Show all settings" / "Fewer settings" button (null when not in minimal mode). */
  toggle() {
    if (!this.on) return null;
    this.button = el("button", { type: "button", class: "btn minimal-toggle", "aria-expanded": "false" });
    this.button.addEventListener("click", () => {
      this.all = !this.all;
      for (const e of this.hidden) e.hidden = !this.all;
      this.onChange();
      this.sync();
    });
    this.sync();
    return this.button;
  }

  sync() {
    if (!this.button) return;
    this.button.hidden = this.hidden.size === 0;
    this.button.textContent = this.all ? "Fewer settings" : "Show all settings";
    this.button.setAttribute("aria-expanded", String(this.all));
  }
}
