// Focus order = visual order when a layout changes with the width.
//
// On a narrow screen (a phone, or a laptop at 200 % zoom) the labs' two columns become one,
// and some parts are shown in a different order than the wide layout's (Lab 1: the controls
// come right after the stage, above the measurements; Lab 3: the chart goes last).  CSS
// `order` would move them for the eye only, so Tab and a screen reader would jump up and
// down the page.  Here such a part is moved in the DOM itself while the narrow layout
// applies, and put back (where a placeholder comment marks its place) when it stops.
//
//   reflow(section, [{ move: ".a", before: ".b" }, { move: ".c", append: ".d" }]);
//
// Each move names the node to move and one anchor (selectors inside `root`): `before` or
// `after` an element, or `append` as the last child of one.  Nodes keep their identity
// (listeners and the labs' references stay valid); a move whose nodes are missing is skipped.

export const NARROW = "(max-width: 900px)"; // the labs' one-column breakpoint (app.css, .lab-layout)

export function reflow(root, moves, query = NARROW) {
  if (!root || !moves || !moves.length || !window.matchMedia) return null;
  const mq = window.matchMedia(query);
  const placed = moves.map((m) => ({ ...m, node: root.querySelector(m.move), home: null }));

  function apply() {
    for (const p of placed) {
      if (!p.node) continue;
      if (mq.matches) {
        const anchor = root.querySelector(p.before || p.after || p.append);
        if (!anchor) continue;
        if (!p.home) {
          p.home = document.createComment(`reflow: ${p.move}`);
          p.node.before(p.home);
        }
        if (p.before) anchor.before(p.node);
        else if (p.after) anchor.after(p.node);
        else anchor.append(p.node);
      } else if (p.home) {
        p.home.replaceWith(p.node);
        p.home = null;
      }
    }
  }
  // wide -> narrow moves in list order; narrow -> wide puts back in reverse order, so a move
  // anchored on an earlier moved node finds it where it was
  const update = () => {
    if (mq.matches) apply();
    else { placed.reverse(); apply(); placed.reverse(); }
  };
  update();
  mq.addEventListener("change", update);
  return { update, query: mq };
}
