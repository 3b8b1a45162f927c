// Notices under the site header: the one place that writes them (the shell, the labs, the
// service worker's "a new version is ready").  Each is dismissible; text is never HTML.
//
//   notify(message, kind = "info", { id, action: {label, onClick, id} })
//       one notice; a notice with the same id replaces the previous one
//   notifyMany(title, items, kind = "warn")
//       many related notices (e.g. 200 bad keys in a link) as ONE summary with a
//       "details" toggle; every value shown is cut to MAX_TEXT characters

export const MAX_TEXT = 160;

/** `text` cut to `max` characters (with an ellipsis), so a hostile URL cannot widen the page. */
export function clip(text, max = MAX_TEXT) {
  const s = String(text);
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function box() {
  return document.getElementById("notices");
}

function shell(kind, id) {
  if (id) document.getElementById(id)?.remove();
  const div = document.createElement("div");
  div.className = `notice notice-${kind}`;
  if (id) div.id = id;
  const close = document.createElement("button");
  close.type = "button";
  close.className = "notice-close";
  close.setAttribute("aria-label", "Dismiss this notice");
  close.textContent = "×";
  close.addEventListener("click", () => dismiss(div));
  return { div, close };
}

/** Remove a notice; a keyboard on its close button goes on to the next notice's (or the one
 *  before), else to the lab, instead of falling to the page's top. */
function dismiss(div) {
  const had = div.contains(document.activeElement);
  // the nearest notice still shown (another lab's are hidden), after this one, else before
  const shown = (n) => n && !n.hidden;
  let sibling = div.nextElementSibling;
  while (sibling && !shown(sibling)) sibling = sibling.nextElementSibling;
  if (!sibling) {
    sibling = div.previousElementSibling;
    while (sibling && !shown(sibling)) sibling = sibling.previousElementSibling;
  }
  div.remove();
  if (!had) return;
  const next = sibling && sibling.querySelector(".notice-close");
  const labs = document.getElementById("labs");
  const to = next || (labs && !labs.inert ? labs : null);
  if (to) to.focus({ preventScroll: !next });
}

export function notify(message, kind = "info", { id = null, action = null } = {}) {
  const parent = box();
  if (!parent) return null;
  const { div, close } = shell(kind, id);
  const text = document.createElement("span");
  text.textContent = clip(message, 600) + (action ? " " : "");
  if (action) {
    const b = document.createElement("button");
    b.type = "button";
    if (action.id) b.id = action.id;
    b.textContent = action.label;
    b.addEventListener("click", action.onClick);
    text.append(b);
  }
  div.append(text, close);
  parent.append(div);
  return div;
}

export function notifyMany(title, items, kind = "warn") {
  if (!items.length) return null;
  if (items.length === 1) return notify(`${title}: ${clip(items[0])}`, kind);
  const parent = box();
  if (!parent) return null;
  const { div, close } = shell(kind, null);
  const det = document.createElement("details");
  const sum = document.createElement("summary");
  sum.textContent = `${title}: ${items.length} notes (details)`;
  const list = document.createElement("ul");
  for (const item of items.slice(0, 50)) {
    const li = document.createElement("li");
    li.textContent = clip(item);
    list.append(li);
  }
  if (items.length > 50) {
    const li = document.createElement("li");
    li.textContent = `… and ${items.length - 50} more`;
    list.append(li);
  }
  det.append(sum, list);
  div.append(det, close);
  parent.append(div);
  return div;
}
