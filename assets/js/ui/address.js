// The address's own keys, matched without regard to case (a side-effect module: app.js imports
// it first, before anything reads the address).
//
// A teacher who types ?LAB=Vicsek&Controls=Minimal means ?lab=vicsek&controls=minimal: the
// student got the Swarm Lab, a notice, and the link's other settings thrown away with it.
// Here the page's keys (ui/share.js SHELL_KEYS: lab, trial, controls, theme, shapes, embed,
// engine, world) and their values, which are words or sizes in lower case, are written in
// lower case in the address, once, with history.replaceState: every reader (embed.js, the
// labs, access.js, a copied link) then sees the one spelling.  A lab's own settings keep their
// case here (Lab 1 has N and R): the engine matches those (sessions/base.py op_parse_query).
import { SHELL_KEYS } from "./share.js";

export function canonicalQuery(search) {
  const params = new URLSearchParams(search);
  let changed = false;
  const out = new URLSearchParams();
  for (const [key, value] of params) {
    const low = key.toLowerCase();
    if (SHELL_KEYS.has(low) && (low !== key || value.toLowerCase() !== value)) {
      out.append(low, value.toLowerCase());
      changed = true;
    } else {
      out.append(key, value);
    }
  }
  return changed ? out.toString() : null;
}

const canonical = canonicalQuery(location.search);
if (canonical !== null) {
  try {
    history.replaceState(history.state, "", `${location.pathname}?${canonical}${location.hash}`);
  } catch (e) { /* a sandboxed frame may refuse: the page then reads the address as typed */ }
}
