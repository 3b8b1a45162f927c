// Build HTML controls from the engine's parameter specs.
//
// A spec row is {name, default, label, kind, min, max, step, decimals, unit, unit_spoken,
// unit_one, unit_one_spoken, help, choices, choice_labels, group, advanced} (app/swarmlab/params.py): every word a control shows
// (label, unit, help, the text of each choice) comes from the engine's spec.
// Every control gets a visible <label>, an accessible
// name, and an <output> that shows the value with its unit (hidden from assistive technology:
// the slider says its value itself, in words), and under it the engine's note on the latest value.  Changes go through
// `apply(name, value)`, which returns (or resolves to) {ok: true} or {ok: false, error};
// on an error the control snaps back to its last good value and shows the message, so
// bad input never loses state.  While a slider is dragged, the engine (in its worker)
// may still be applying an earlier value: every value is sent, in order, and only the
// reply to the latest one decides what the control shows.  A whole number over more than
// NUMBER_BOX_ABOVE steps (a sample number) is a number box, applied on Enter or leaving it.

let uid = 0;
const NUMBER_BOX_ABOVE = 10000; // steps of a whole-number range beyond which no slider can aim

/** A setting's value as the engine writes it (ParamSpec.shown: its decimals, its unit), so a
 *  control's output and the chart markers and notices from Python agree. */
export function formatValue(spec, value) {
  if (spec.kind === "bool") return value ? "on" : "off";
  if (spec.kind === "choice") return choiceLabel(spec, value);
  const v = Number(value);
  let text = v.toFixed(spec.kind === "int" ? 0 : spec.decimals ?? 0);
  if (Number(text) !== v) text = String(v); // off the step (a link's 12.25): in full, never rounded
  if (!spec.identifier) text = grouped(text); // "10,000 boids", but "sample 12345" (ParamSpec.identifier)
  const unit = unitFor(spec, v).shown;
  return unit ? `${text} ${unit}` : text;
}

/** The unit after a value, shown and spoken: the spec's unit_one after exactly 1 of a whole
 *  number ("1 animal"), else its unit (ParamSpec.unit_for). */
function unitFor(spec, v) {
  return spec.unit_one && spec.kind === "int" && v === 1
    ? { shown: spec.unit_one, spoken: spec.unit_one_spoken || spec.unit_one }
    : { shown: spec.unit || "", spoken: spec.unit_spoken || spec.unit || "" };
}

/** The same value as a screen reader should say it: the unit in words from the spec
 *  (ParamSpec.unit_spoken: "12 lengths per second squared", not "12 lengths/s²"). */
export function spokenValue(spec, value) {
  const text = formatValue(spec, value);
  if (spec.kind === "bool" || spec.kind === "choice") return text;
  const unit = unitFor(spec, Number(value));
  return unit.shown ? text.slice(0, text.length - unit.shown.length) + unit.spoken : text;
}

/** What the page shows for a choice value: its label from the spec, else the value. */
export function choiceLabel(spec, value) {
  const labels = spec.choice_labels || {};
  return Object.prototype.hasOwnProperty.call(labels, value) ? labels[value] : String(value);
}

/** A readout's number as the session's Readout spec writes it ({decimals, scale}), without
 *  its unit (a table's column names the unit once); "–" if none. */
export function readoutNumber(r, v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  return grouped((v * (r.scale ?? 1)).toFixed(r.decimals ?? 3));
}

/** A number's text with the digits before its point grouped in threes, as the page's prose
 *  writes numbers ("10,000 boids", "1,234.5 s"); params.py grouped() is the same rule, so a
 *  value reads alike on a slider, a readout and a chart marker. */
export function grouped(text) {
  const point = text.indexOf(".");
  const whole = point < 0 ? text : text.slice(0, point);
  return whole.replace(/\B(?=(\d{3})+$)/g, ",") + (point < 0 ? "" : text.slice(point));
}

/** A readout's text as the session's Readout spec says ({unit, decimals, scale}); "–" if none. */
export function formatReadout(r, v) {
  const text = readoutNumber(r, v);
  return r.unit && text !== "–" ? `${text} ${r.unit}` : text;
}

/** A label's text with each code name in it ("Separation k_sep": the name the rule's code
 *  uses, p.k_sep) shown as written and read as words ("k sep"), not letter by letter with
 *  "underscore": [text, {shown, spoken}, text, ...]. */
export function labelParts(text) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) {
    parts.push(text.slice(last, m.index), { shown: m[0], spoken: m[0].replaceAll("_", " ") });
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts.filter((x) => x !== "");
}

/** Spec names grouped as the engine's groups say ({id, title, advanced} in display order):
 *  [{group, names}], each group's names in spec order; groups with no spec are left out. */
export function groupSpecs(specs, groups) {
  return groups
    .map((group) => ({ group, names: specs.filter((s) => s.group === group.id).map((s) => s.name) }))
    .filter((g) => g.names.length);
}

/**
 * @param {HTMLElement} container  where to append the rows
 * @param {Array} specs             spec rows, in display order
 * @param {object} opts
 *   values: {name: value}          initial values (defaults otherwise)
 *   apply(name, value)             -> {ok, error?, note?} (or a promise of it): an error or a
 *                                   note is shown at the control ("… when you press Restart")
 *   only: [names]                  build only these (in this order)
 *   onError(message, name)         optional extra reporting (the lab's ctx.settingNotice)
 */
/** What a number box holds when the browser could not read what was typed ("abc", "1e309":
 *  the page then sees only an empty box), as words the engine's message can name; else null. */
export function unreadableNumber(input) {
  return input.validity && input.validity.badInput ? "not a number" : null;
}

export function buildControls(container, specs, opts = {}) {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const names = opts.only || specs.map((s) => s.name);
  const values = { ...Object.fromEntries(specs.map((s) => [s.name, s.default])), ...(opts.values || {}) };
  const rows = new Map();

  for (const name of names) {
    const spec = byName.get(name);
    if (!spec) throw new Error(`no parameter spec named ${name}`);
    const id = `ctl-${name}-${++uid}`;
    const row = document.createElement("div");
    row.className = `ctl ctl-${spec.kind}`;
    row.dataset.param = name;
    const label = document.createElement("label");
    label.htmlFor = id;
    for (const part of labelParts(spec.label)) {
      if (typeof part === "string") { label.append(part); continue; }
      const shown = document.createElement("span");
      shown.className = "code-name";
      shown.setAttribute("aria-hidden", "true");
      shown.textContent = part.shown;
      const spoken = document.createElement("span");
      spoken.className = "sr-only";
      spoken.textContent = part.spoken;
      label.append(shown, spoken);
    }
    let input;
    // The value as shown, with its unit in symbols ("10.5 lengths/s²").  Hidden from assistive
    // technology: the slider itself says its value, with the unit in words (aria-valuetext),
    // and an <output> is a live region that would say each change a second time.
    const output = document.createElement("output");
    output.htmlFor = id;
    output.setAttribute("aria-hidden", "true");

    if (spec.kind === "bool") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = Boolean(values[name]);
      row.append(input, label);
    } else if (spec.kind === "choice") {
      input = document.createElement("select");
      for (const c of spec.choices) {
        const o = document.createElement("option");
        o.value = c;
        o.textContent = choiceLabel(spec, c);
        input.append(o);
      }
      input.value = values[name];
      row.append(label, input);
    } else if (spec.kind === "int" && (spec.max - spec.min) / (spec.step || 1) > NUMBER_BOX_ABOVE) {
      // a whole number over a huge range (a sample number): a slider could not pick 1 to 8
      input = document.createElement("input");
      input.type = "number";
      input.inputMode = "numeric";
      input.min = spec.min;
      input.max = spec.max;
      input.step = spec.step || 1;
      input.value = values[name];
      row.classList.add("ctl-number");
      row.append(label, input);
    } else {
      input = document.createElement("input");
      input.type = "range";
      input.min = spec.min;
      input.max = spec.max;
      input.step = spec.step || (spec.kind === "int" ? 1 : "any");
      input.value = values[name];
      row.append(label, output, input);
      output.textContent = formatValue(spec, values[name]);
    }
    input.id = id;
    input.name = name;
    if (spec.help) {
      const help = document.createElement("p");
      help.className = "help";
      help.id = `${id}-help`;
      help.textContent = spec.help;
      row.append(help);
    }
    // The engine's word on the latest value, at the control itself: why a value was refused
    // (the control is marked invalid) or when it takes effect ("… when you press Restart").
    const note = document.createElement("p");
    note.className = "ctl-note";
    note.id = `${id}-note`;
    note.hidden = true;
    row.append(note);
    const describe = () => { // the help, the note while shown, and what a lab added (e.g. why a control is held)
      const mine = [`${id}-help`, note.id];
      const others = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter((x) => x && !mine.includes(x));
      const ids = [spec.help ? mine[0] : "", note.hidden ? "" : note.id, ...others].filter(Boolean).join(" ");
      if (ids) input.setAttribute("aria-describedby", ids); else input.removeAttribute("aria-describedby");
    };
    const showNote = (text, error = false) => {
      text = text || "";
      if (text === note.textContent && error === note.classList.contains("error")) return; // (a drag: every value)
      note.textContent = text;
      note.hidden = !text;
      note.classList.toggle("error", Boolean(text) && error);
      if (error) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
      describe();
    };
    describe();

    const read = () => {
      if (spec.kind === "bool") return input.checked;
      if (spec.kind === "choice") return input.value;
      if (input.type === "number") {  // read as the engine reads it ("1e3" is 1000)
        // what is no finite number goes to the engine as text, so that its message names it (NaN
        // went as null: "got None")
        const unread = unreadableNumber(input);
        if (unread) return unread;
        const typed = input.value.trim();
        const v = Number(typed);
        return typed !== "" && Number.isFinite(v) ? v : typed;
      }
      return spec.kind === "int" ? parseInt(input.value, 10) : parseFloat(input.value);
    };
    const put = (text) => { if (output.textContent !== text) output.textContent = text; };
    const show = (v) => {
      if (spec.kind === "bool") input.checked = Boolean(v);
      else input.value = v;
      if (input.type === "range") put(formatValue(spec, v));
      if (input.type === "range" && input.getAttribute("aria-valuetext") !== spokenValue(spec, v)) {
        input.setAttribute("aria-valuetext", spokenValue(spec, v));
      }
    };
    show(values[name]);

    let latest = 0;
    const settle = (v, result) => {
      if (result && result.ok === false) {
        row.classList.add("invalid");
        show(values[name]);
        row.title = result.error;
        showNote(result.error, true);
        if (opts.onError) opts.onError(result.error, name);
        return;
      }
      row.classList.remove("invalid");
      row.title = "";
      showNote(result && result.note);
      values[name] = v;
      show(v);
    };
    const commit = () => {
      const v = read();
      const mine = ++latest;
      const result = opts.apply ? opts.apply(name, v) : { ok: true };
      if (result && typeof result.then === "function") {
        if (input.type === "range") put(formatValue(spec, v));
        result.then((r) => { if (mine === latest) settle(v, r); },
          (err) => { if (mine === latest) settle(v, { ok: false, error: String((err && err.message) || err) }); });
      } else {
        settle(v, result);
      }
    };
    // Sliders apply live while dragging; selects and checkboxes on change.
    if (input.type === "range") {
      input.addEventListener("input", () => { put(formatValue(spec, read())); commit(); });
    } else {
      input.addEventListener("change", commit);
    }
    rows.set(name, { row, input, spec, show, note: showNote });
    container.append(row);
  }

  return {
    rows,
    /** Set a control's shown value without calling apply (e.g. after a reset). */
    set(name, value) {
      const r = rows.get(name);
      if (!r) return;
      values[name] = value;
      r.show(value);  // (its note stays: a refused value's reason, or a value waiting for Restart)
    },
    /** Take the notes off every control, refusals too: a restart used what they announced
     *  and begins again with the values shown. */
    clearNotes() {
      for (const r of rows.values()) {
        r.row.classList.remove("invalid");
        r.row.title = "";
        r.note("");
      }
    },
    get(name) { return values[name]; },
    values() { return { ...values }; },
  };
}
