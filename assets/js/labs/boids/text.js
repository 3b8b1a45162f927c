// Lab 3's words and markup (our own words; the source is cited at the end of the explanation).
// Static HTML plus explainHtml(c), whose numbers come from the session (its constants and
// the live parameters, filled into the .bd-param spans), never from literals here; the
// readouts' and the chart's words are the session's display data (layout().display).

import { capital, num, say } from "../../ui/dom.js";
import { readoutRowHtml } from "../../ui/run.js";

/** The figure caption of the session's chart ``c`` (display.charts[0]; the canvas's own
 *  name is written by ui/chart.js from the same words).  Its random-headings level (span
 *  .bd-baseline) follows the population: see ``randomLevel``. */
const chartCaption = (c, C) => {
  const series = Object.fromEntries(c.series.map((s) => [s.key, s]));
  const { P: p, spacing } = series;
  return `${capital(p.label)} (${p.axis} axis): 1 when every boid heads the same way, ` +
    `<span class="bd-baseline"></span>. ${capital(spacing.label)}, in ${spacing.unit} (${spacing.axis} axis). ` +
    `Sampled every ${C.sample_seconds} s of model time; vertical lines mark setting changes.`;
};

/** The caption's level of P for headings at random: ``baseline`` is the session's
 *  (metrics.random_polarization of the current population ``n``). */
export const randomLevel = (baseline, n) =>
  `about ${baseline.toFixed(2)} for ${n === 1 ? "1 boid" : `${num(n)} boids`} heading anywhere`;

/** One readout row per the session's Readout (ui/run.js; the value goes in span .bd-<key>). */
function readoutHtml(r, C) {
  const title = r.key === "flocks"
    ? ` title="A flock here is ${C.flock_min} or more boids linked by a chain of neighbours, each within the alignment range of the next and heading within ${C.flock_link_deg}° of it, that fly roughly one way (their own P at least ${C.flock_agreement}). A boid alone has nobody within that range."`
    : "";
  return readoutRowHtml(r, "bd", title);
}

/** The lab's markup; ``C`` is the session's constants and ``D`` its display words
 *  (layout().constants and layout().display). */
export const layoutHtml = (C, D) => `
  <div class="lab-layout bd-layout">
    <div class="bd-main">
      <div class="stage bd-stage">
        <canvas class="bd-canvas" tabindex="0" role="application" aria-roledescription="flock stage"
          aria-label="Flock of boids over a sky whose edges wrap around"
          aria-describedby="bd-stage-help"></canvas>
        <p class="bd-slow" hidden></p>
        <p class="bd-sr" role="status" aria-live="polite"></p>
      </div>
      <div class="btn-row bd-transport">
        <button type="button" class="btn primary bd-play"></button>
        <button type="button" class="btn bd-restart" title="Start again from the same scattered start, keeping the settings">Restart</button>
        <button type="button" class="btn bd-copy">Copy link</button>
      </div>
      <div class="bd-stage-captions">
      <p class="stage-caption" id="bd-stage-help">
        <strong>The treat:</strong> press and hold on the sky (mouse or finger) and the flock steers towards that
        spot; keep holding for ten seconds or so and most of it swarms round the spot; drag to move it; let go and
        they spread out again. Keyboard: focus the stage, move the cursor with the arrow keys, and hold <kbd>Enter</kbd>
        or <kbd>Space</kbd>; or tap it once to keep the treat there, and again (or <kbd>Esc</kbd>) to let go.
      </p>
      <p class="stage-caption bd-world"></p>
      </div>
      <figure class="panel bd-chart-fig">
        <canvas class="bd-chart" role="img"></canvas>
        <figcaption>${chartCaption(D.charts[0], C)}</figcaption>
      </figure>
    </div>
    <div class="bd-side">
      <div class="controls bd-controls">
        <h3>Rules</h3>
        <div class="bd-weights"></div>
        <div class="bd-pop"></div>
        <details class="bd-advanced">
          <summary>More settings</summary>
          <div class="bd-adv-rows"></div>
        </details>
        <div class="readouts bd-readouts">
          ${D.readouts.map((r) => readoutHtml(r, C)).join("\n          ")}
        </div>
      </div>
      <section class="panel bd-try" aria-labelledby="bd-try-h">
        <h3 id="bd-try-h">Try this</h3>
        <p class="bd-try-intro">Each button sets the three weights, the cohesion range and the field of view at once while the flock keeps flying.</p>
        <div class="bd-presets"></div>
      </section>
    </div>
  </div>
  <div class="bd-below">
    <div class="panel explain bd-explain"></div>
  </div>`;

/** Where the advanced settings are: with ?controls=minimal the page hides "More settings" at
 *  first, so the text says how to reach it. */
const moreSettings = (minimal) => (minimal ? "“Show all settings”, then “More settings”" : "“More settings”");

// A setting's value, kept up to date by the lab (boids.js showWorld); with `unit`, written as
// its control writes it, with the spec's unit ("5.0 lengths/s").
const P = (name, unit = false) => `<span class="bd-param" data-param="${name}"${unit ? " data-unit" : ""}></span>`;

/** The explanation's sentences whose words depend on the settings, as HTML (their numbers are
 *  P spans, filled like the others): the lab puts the one that fits the settings `p` in each
 *  .bd-says[data-says] whenever they change, so the words stay true for any values.  The
 *  "Cohesion only" preset sees all round (no blind spot) and reaches far; a student may set
 *  cohesion's reach below alignment's. */
export const SAYS = {
  view: (p) => (p.view < 360
    ? `Like a bird, a boid looks ahead and to the sides but not straight back: its field of view is ${P("view")}° wide,
      centred on where it is heading, so a cone of ${P("blind")}° behind it is blind.`
    : `A bird looks ahead and to the sides but not straight back; with these settings a boid sees all round: its field
      of view is ${P("view")}° wide, so it has no blind spot.`),
  reach: (p) => (p.coh_radius > p.radius
    ? `cohesion, which reaches ${p.coh_radius > 1.25 * p.radius ? "further" : "a little further"} than alignment
      (${P("coh_radius")} against ${P("radius")} lengths), can pull it back later, so streams split and rejoin.`
    : `cohesion, which here reaches ${p.coh_radius === p.radius ? "only as far as" : "less far than"} alignment
      (${P("coh_radius")} against ${P("radius")} lengths), cannot pull it back once it is out of alignment's reach, so
      a stream that tears off rejoins only by chance.`),
};
const says = (name) => `<span class="bd-says" data-says="${name}"></span>`;

/** The page text below the lab.  ``minimal``: see moreSettings. */
export function explainHtml(c, { minimal = false, scalingTitle } = {}) {
  const more = moreSettings(minimal);
  // MathML Core has no bold mathvariant: use the mathematical bold letters themselves.
  const BOLD = { a: "\u{1D41A}", d: "\u{1D41D}", p: "\u{1D429}", v: "\u{1D42F}", s: "\u{1D42C}", r: "\u{1D42B}" };
  const b = (s) => `<mi>${BOLD[s]}</mi>`;
  const sub = (base, s) => `<msub>${base}<mi>${s}</mi></msub>`;
  const ksub = (s) => `<msub><mi>k</mi><mtext>${s}</mtext></msub>`;
  const sum = (set) => `<munder><mo largeop="true" class="bd-sum">∑</mo><mrow><mi>j</mi><mo>∈</mo><msub><mi>${set}</mi><mi>i</mi></msub></mrow></munder>`;
  const mean = (set) => `<mfrac><mn>1</mn><mrow><mo>|</mo><msub><mi>${set}</mi><mi>i</mi></msub><mo>|</mo></mrow></mfrac>`;
  const pi = sub(b("p"), "i"), pj = sub(b("p"), "j"), vi = sub(b("v"), "i"), vj = sub(b("v"), "j");
  const steerOf = (rule) => `<msub>${b("s")}<mtext>${rule}</mtext></msub>`;
  return `
  <div class="bd-col">
  <h2>Three rules, and nothing else</h2>
  <p>Every boid follows the same three habits, and it applies them only to the boids it can see. ${says("view")} Each habit also has its own reach:</p>
  <ol>
    <li><strong>Separation — keep your space.</strong> Steer away from the boids in view closer than
      ${P("sep_radius")} body lengths; the closest count most in choosing which way.</li>
    <li><strong>Alignment — fly like those around you.</strong> Steer towards the average velocity of the boids in
      view within <span class="bd-radius bd-param" data-param="radius">${c.radius}</span> lengths.</li>
    <li><strong>Cohesion — stay with the others.</strong> Steer towards the middle of the boids in view within
      ${P("coh_radius")} lengths.</li>
  </ol>
  <p>None of the three rules says where to go, who to follow or what the whole flock is doing. Whatever the flock does, it is each boid
  reacting to a handful of others. (Real starlings each follow about six or seven nearest neighbours, however far away they
  are, as Ballerini and colleagues found in 2008; these boids, like Reynolds', use distances instead. The Swarm Lab, Lab 1, offers both.)</p>

  <h2>The formulas</h2>
  <p>For boid <var>i</var> at position <b>p</b><sub>i</sub> with velocity <b>v</b><sub>i</sub>, the boids
  <var>j</var> in its view within each rule's reach form the sets <var>S</var><sub>i</sub> (separation),
  <var>A</var><sub>i</sub> (alignment) and <var>C</var><sub>i</sub> (cohesion). Each rule first points a direction:</p>
  <div class="formula"><math display="block" data-formula="separation">
    <msub>${b("r")}<mtext>sep</mtext></msub><mo>=</mo>${sum("S")}
    <mfrac><mrow>${pi}<mo>−</mo>${pj}</mrow><mrow><msup><mrow><mo>|</mo>${pi}<mo>−</mo>${pj}<mo>|</mo></mrow><mn>2</mn></msup><mo>+</mo><mi>ε</mi></mrow></mfrac>
  </math></div>
  <p>Each close neighbour adds an arrow along the line from it to you, longer the closer it is: the
  displacement is divided by the squared distance (an inverse-square weight), so the arrow's length
  falls as about 1/distance. <var>ε</var> = ${c.eps} length² keeps it finite when two boids touch: closer
  than about ${c.eps === 1 ? "one length" : `√${c.eps} lengths`} the arrow eases off instead of growing without end, and two boids at the very same point push neither.
  So the nearest decide which way to turn. How hard the boid turns away does not depend on how close they are: see the steering below.</p>
  <div class="formula"><math display="block" data-formula="alignment">
    <msub>${b("r")}<mtext>ali</mtext></msub><mo>=</mo>${mean("A")}${sum("A")}${vj}
  </math></div>
  <div class="formula"><math display="block" data-formula="cohesion">
    <msub>${b("r")}<mtext>coh</mtext></msub><mo>=</mo>${mean("C")}${sum("C")}<mo>(</mo>${pj}<mo>−</mo>${pi}<mo>)</mo>
  </math></div>
  <p>The neighbours' average velocity, and the arrow from you to their middle. A rule with nobody in its reach
  asks for nothing.</p>
  <p>Then each rule <em>steers</em>, as Reynolds' boids do: the boid would like to fly at full speed
  (<var>v</var><sub>max</sub> = ${P("v_max", true)}) the way the rule points (its desired velocity <b>d</b>), and the steering is that wish minus
  its present velocity, taken per <var>τ</var> = ${c.steer_time} s so that it is an acceleration, never more than
  Reynolds' maximum force <var>F</var> = ${P("max_force", true)} (a force per unit mass, so an acceleration too):</p>
  <div class="formula"><math display="block" data-formula="desired velocity">
    <msub>${b("d")}<mtext>rule</mtext></msub><mo>=</mo><msub><mi>v</mi><mtext>max</mtext></msub>
    <mfrac><msub>${b("r")}<mtext>rule</mtext></msub><mrow><mo>|</mo><msub>${b("r")}<mtext>rule</mtext></msub><mo>|</mo></mrow></mfrac>
  </math></div>
  <div class="formula"><math display="block" data-formula="steering">
    ${steerOf("rule")}<mo>=</mo>${ksub("rule")}<mspace width="0.2em"/><mtext>cap</mtext><mrow><mo>(</mo>
    <mfrac><mrow><msub>${b("d")}<mtext>rule</mtext></msub><mo>−</mo>${vi}</mrow><mi>τ</mi></mfrac><mo>,</mo><mi>F</mi><mo>)</mo></mrow>
  </math></div>
  <p>The sliders are the weights <var>k</var>. A boid cannot do everything at once: in one moment it can change its
  velocity by at most <var>F</var> per second in all, and the rules are served in order, separation first, then
  alignment, then cohesion. Each takes what it asks for while the allowance lasts, the one that does not fit gets what
  is left, and the rest wait (Reynolds' "prioritised allocation"):</p>
  <div class="formula"><math display="block" data-formula="allocation">
    <msub>${b("a")}<mi>i</mi></msub><mo>=</mo><mtext>allocate</mtext><mrow><mo>(</mo>${steerOf("sep")}<mo>,</mo>${steerOf("ali")}<mo>,</mo>${steerOf("coh")}<mo>;</mo><mi>F</mi><mo>)</mo></mrow>
  </math></div>
  <div class="formula"><math display="block" data-formula="velocity update">
    ${vi}<mo>←</mo><mtext>limit</mtext><mrow><mo>(</mo>${vi}<mo>+</mo><msub>${b("a")}<mi>i</mi></msub><mi>Δt</mi><mo>)</mo></mrow>
  </math></div>
  <div class="formula"><math display="block" data-formula="position update">
    ${pi}<mo>←</mo>${pi}<mo>+</mo>${vi}<mi>Δt</mi>
  </math></div>
  <p>“limit” keeps every speed between ${P("v_min")} and ${P("v_max")} body lengths per second: boids never hover
  and never race. All boids update together from where everyone was a moment before; Δ<var>t</var> = ${c.dt} s.
  Distances are measured the short way round the wrapping edges. The treat adds one more pull, towards the held point at
  full speed with a response rate of ${c.treat_rate} per second. It is a lure from outside the flock, not one of the
  three rules, so it is not held to the allowance <var>F</var>: that is why boids under the pointer crowd closer than
  their separation range. All these settings are under ${more}.</p>

  </div>
  <div class="bd-col">
  <h2>Why the flock keeps flowing</h2>
  <p>At the start every boid is in a random place with a random heading. Close neighbours soon agree, and the sky fills
  with small groups and streams. They meet and join, yet the flock does not freeze into one block flying straight
  on, although nothing random is added after the start: the liveliness comes from the rules themselves. (In all
  ${say(c.goal_samples)} sample numbers we tested, groups were still splitting and swinging round after ${say(c.goal_seconds / 60)} minutes.)
  The wrapping sky has one trap. A stream can grow all the way round the sky and join its own tail: a ring with no
  front, so nobody leads a turn, and it may cruise straight on for minutes until a group tears off at its side.
  Hold the treat for a moment to break the ring. A real sky has no such ring.</p>
  <p>The blind spot is the key. The boids at the front of a group see nobody ahead, only the few beside them, so they
  are pulled sideways and swing off; the boids behind see them turn and follow, and the whole group wheels round. A
  stream that turns away from the rest may tear off as a group of its own; ${says("reach")} The force limit and the order of service add to
  it: a boid that is crowded spends its whole allowance on keeping its space, and for that moment it does not match or
  gather, which keeps the boids from settling into a rigid grid. Open ${more} and widen the field of view to
  360°: with no blind spot the groups soon calm down into one flock cruising straight on.</p>
  <h2>Why purely local rules scale</h2>
  <p>Each boid's work is a short sum over the few boids near it. When a flock grows by spreading over more sky, that sum
  stays the same size: birds far away add no neighbours nearby. So 25 times as many boids cost about 25 times as much
  work, where “everyone looks at everyone” would cost 625 times as much. This needs a quick way to find neighbours; here
  a grid of cells files boids by place, and each boid checks only the cells next to its own. (Squeezing more boids into
  the <em>same</em> sky does add neighbours, which is why ${num(c.max_population)} boids run slower here.) Nobody keeps a list of the whole
  flock and no message has to reach everyone. See it for yourself in “${scalingTitle}” under the chart: it starts the flock again at
  sizes from ${say(c.scale_sizes[0])} boids to ${num(c.scale_sizes[c.scale_sizes.length - 1])}, with the sky growing too so that each boid keeps the same few neighbours,
  and times both ways in your own browser. The time per boid of this model falls at first, while a step's fixed cost
  is shared by more boids, then levels off: it does not grow with the flock. The time per boid of everyone checking
  everyone grows in step with the flock.</p>

  </div>`;
}

/** The lab's last part, after its story: the sources and what the page simplifies. */
export function sourcesHtml({ minimal = false } = {}) {
  return `
  <section class="panel explain bd-sources" aria-labelledby="bd-sources-h">
  <h2 id="bd-sources-h">Sources</h2>
  <ul class="sources">
    <li>Craig W. Reynolds (1987). Flocks, herds, and schools: a distributed behavioral model.
      <cite>Computer Graphics</cite> 21(4), 25–34 (SIGGRAPH ’87).
      <a href="https://doi.org/10.1145/37401.37406" rel="noopener" target="_blank">doi:10.1145/37401.37406</a></li>
    <li>Michele Ballerini, Nicola Cabibbo, Raphael Candelier, et al. (2008). Interaction ruling animal collective behavior
      depends on topological rather than metric distance: evidence from a field study. <cite>PNAS</cite> 105(4), 1232–1237.
      <a href="https://doi.org/10.1073/pnas.0711437105" rel="noopener" target="_blank">doi:10.1073/pnas.0711437105</a></li>
  </ul>
  <p class="bd-note">What this page simplifies: it is 2-D, the units are illustrative, and boids sense the others in
  view perfectly (no noise). Try a few sample numbers (under ${moreSettings(minimal)}): one run can be lucky.</p>
  </section>`;
}

export const HEADER_HTML = `
    <header class="lab-head bd-head">
      <p class="lab-kicker">Collective motion, hands on · Lab 3</p>
      <h1>Three rules: who steers the flock?</h1>
      <p class="lab-lead">A murmuration of thousands of starlings twists across the evening sky with no leader
      and no plan, and each bird keeps track of only a handful of neighbours. So who steers? Nobody. Three
      simple rules, applied by every bird to what is right around it, are enough.</p>
    </header>`;

/** The stage caption under the sky: the world and the neighbourhood, from the live parameters
 *  ``p`` and the session's constants ``C`` (what the flocks readout counts). */
export function worldCaption(world, p, C, linked = false, stretched = false) {
  // the sky takes the stage's shape (the default sky's area), so a phone flies a taller one than
  // a wide screen: the same sample gives another run there, unless a copied link brings the sky;
  // a sky too big to take this stage's shape (the scaling experiment's 10,000 boids) is drawn
  // stretched to it, and says so, as does a link's sky on a stage of another shape
  const shape = linked && stretched
    ? " (the link's sky, drawn stretched to this stage's other shape, so headings look slanted)"
    : linked ? " (the link's sky)"
    : stretched ? ", drawn stretched to fit this stage (a sky this big cannot take its shape, so headings look slanted),"
      : ", shaped like this stage (a copied link keeps it, to replay this run on any screen),";
  return `The sky is ${num(Math.round(world.width))} × ${num(Math.round(world.height))} body lengths${shape} and its edges wrap around. ` +
    `Each boid sees the others within a ${p.view}° field of view: closer than ${p.sep_radius} lengths it keeps away, ` +
    `within ${p.radius} lengths it matches them, within ${p.coh_radius} lengths it is drawn to them. ` +
    `Boids are drawn a little larger than life; colour shows heading. ` +
    `In the readouts a flock is ${C.flock_min} or more boids, linked by a chain of neighbours within ${p.radius} lengths ` +
    `that head within ${C.flock_link_deg}° of each other, flying roughly one way. ` +
    `Random headings make a couple of small flocks by chance (about two at the seeded start, before any rule acts): ` +
    `a real flock holds more boids, and lasts.`;
}
