// Page wording for Lab 2 (our own words).  Static HTML only: no user data goes in here.
// The numbers in it (R, the kick, the step, the random level, the check's seeds and lengths)
// are the session's constants (`c`, from op_layout), never copies.

import { num, say } from "../../ui/dom.js";

const degrees = (rad) => Math.round((rad * 180) / Math.PI);

/** The check's name, from the number of its seeds ("eight-seed check"). */
export const checkName = (c) => `${say(c.seeds.length)}-seed check`;

export const headerHtml = (c) => `
  <header class="lab-head vk-head">
    <p class="lab-kicker">Collective motion, hands on · Lab 2</p>
    <h1>How can a few local turns become one shared direction?</h1>
    <p class="lab-lead">Take ${c.n} arrows, each one turning towards the average heading of the arrows right
    next to it, with a small random nudge on top. Nobody sees the whole box and nobody is in charge. Play it, change one
    knob, and see whether a common heading appears anyway, and how sure we can be that it is not luck.</p>
  </header>`;

export const steps = (c) => [
  {
    key: "see",
    title: "See",
    html: `
      <p>Here ${c.n} arrows wander in a square whose edges wrap around: an arrow that leaves on
      the right comes back on the left. All arrows move at the same speed. At every update, each arrow
      looks at the arrows inside a small circle around itself (itself included), turns towards
      the direction they point on average, picks up a small random nudge, then moves forward.</p>
      <p>No arrow leads and none of them sees the whole box. Watch for a while: do they
      end up heading the same way?</p>
      <p><strong>One arrow is followed from the start</strong> (tap or click another to follow it
      instead). The circle is the area it takes into account, the outlined arrows are the ones inside it,
      and the shaded wedge is the range of directions its next random nudge can give it.</p>`,
  },
  {
    key: "change",
    title: "Change",
    html: `
      <p>The alignment slider <var>a</var> sets how far an arrow turns towards its
      neighbours' average direction at each update: all the way at 1, not at all at 0.</p>
      <p><strong>Slide <var>a</var> down to 0.</strong> Now every arrow ignores the others and only
      gets random nudges. Watch P on the plot sink towards the dashed line.</p>
      <p><strong>Then push <var>a</var> back up to 1</strong> and count roughly how many updates
      pass before most arrows share a direction again. Try values in between too.</p>
      <p><em>Restart</em> replays the same start with exactly the same random nudges, so if two runs
      differ, it is because of what you changed.</p>`,
  },
  {
    key: "understand",
    title: "Understand",
    html: `
      <p><strong>What P measures.</strong> Give every arrow length 1, add up all ${c.n} of them, and
      divide by ${c.n}. P is the length of that average arrow. If all point the same way, P = 1. If their
      directions cancel out, P is close to 0. (The Swarm Lab measures the same P and calls it the
      ${c.p_elsewhere}.) As a formula, with each heading written as the unit complex number
      e<sup><var>i</var><var>θ</var></sup>:</p>
      <p class="formula vk-pformula" tabindex="0">P = | (1/${c.n}) Σ<sub><var>j</var></sub> e<sup><var>i</var><var>θ</var><sub><var>j</var></sub></sup> |</p>
      <p><strong>Why ${c.baseline.toFixed(2)} and not 0.</strong> ${c.n} random directions never cancel out exactly.
      On average the leftover arrow has length about ${c.baseline.toFixed(2)} (the dashed line), so a P near ${c.baseline.toFixed(1)}
      means "no shared direction", not "something small is happening".</p>
      <p><strong>What P does not tell you.</strong> P looks only at directions, never at
      positions. Arrows spread all over the box can all point the same way (high P), and a tight
      knot of arrows can point every which way (low P). Agreeing on a direction and staying close
      together are two different things.</p>`,
  },
];

export const ruleHtml = (c) => `
  <h3>The rule, one update</h3>
  <p class="formula"><var>θ</var><sub>i</sub> ← <var>θ</var><sub>i</sub> + <var>a</var> · wrap(<var>θ̄</var><sub>i</sub> − <var>θ</var><sub>i</sub>) + ${c.kick} · <var>ξ</var><sub>i</sub></p>
  <ul>
    <li><var>θ̄</var><sub>i</sub> is the average direction (circular mean) of every arrow within
      a distance R (${num(c.radius / c.box)} of the box side) of arrow <var>i</var>, however many there are, counting <var>i</var> itself and measuring
      distances across the wrapped edges.
      If those directions cancel exactly, the arrow keeps its own heading before the nudge.</li>
    <li>wrap(…) turns the difference into the smaller of the two possible turns (between −π and π), so an
      arrow never turns by more than half a circle.</li>
    <li><var>ξ</var><sub>i</sub> is a fresh random number, equally likely anywhere between −1 and 1, for each
      arrow at each update, so the nudge is at most ${c.kick} rad (about ${degrees(c.kick)}°) either way
      (in the rules' code it is called <code>kick</code>).</li>
    <li>All arrows turn at once, using everyone's positions and headings from before the update; then
      each moves ${num(c.speed / c.box)} of the box side along its new heading.</li>
    <li><var>a</var> = 1 is the rule of Vicsek and colleagues (1995) with noise amplitude η = ${c.eta}; <var>a</var> = 0 leaves
      only the nudges. Values in between are our own teaching blend.</li>
    <li>The live stage always uses seed ${c.seed}: the same start and the same nudges on every restart.</li>
  </ul>`;

export const checkIntroHtml = (c) => `
  <p>We fixed this test before looking at any run. For each of ${say(c.seeds.length)} seeds (${c.seeds.join(", ")}) the model runs twice from the same start with the same random nudges: once with
  <var>a</var> = 0 and once with <var>a</var> = 1. Each run gets ${num(c.warmup)} updates to settle; then P is
  averaged over the next ${num(c.measure)}. Your browser does all ${2 * c.seeds.length} runs in the background, beside the stage, so the
  stage keeps moving. The numbers are exactly those printed by <code>python -m swarmlab vicsek-check</code>.</p>
  <p><strong>Why averages?</strong> P wobbles from one update to the next, and one run can be lucky or
  unlucky. Averaging over ${num(c.measure)} updates and then over ${say(c.seeds.length)} seeds compares what alignment does, not what one
  moment of one run happened to show.</p>`;

export const NOTES_HTML = `
  <div class="vk-notes-grid"><div>
  <h2>What this model leaves out</h2>
  <ul>
    <li>The arrows are points: no body size, and they pass through each other without colliding.</li>
    <li>There is no pull towards the group (no cohesion), no leader, no blind spot (an arrow sees all
      around itself), no speeding up or slowing down, and no obstacles.</li>
    <li>Agreeing on a direction is not the same as forming a group: aligned arrows can still be spread thinly over the whole box.</li>
    <li>There are no surroundings (no food, shelter, predators, wind or current), and nothing here is
      fitted to measurements of real animals.</li>
    <li>That alignment alone produces order here is not evidence that real flocks, schools or herds
      work by alignment alone. Real animals also keep their distance, stay close, see only part of
      what is around them and change speed; Lab 1 and Lab 3 add some of that.</li>
  </ul>
  </div><div>
  <h2>Sources</h2>
  <ul class="sources">
    <li>T. Vicsek, A. Czirók, E. Ben-Jacob, I. Cohen and O. Shochet, <em>Phys. Rev. Lett.</em> 75, 1226 (1995),
      <a href="https://doi.org/10.1103/PhysRevLett.75.1226" rel="noopener" target="_blank">doi:10.1103/PhysRevLett.75.1226</a>;
      preprint <a href="https://arxiv.org/abs/cond-mat/0611743" rel="noopener" target="_blank">arXiv:cond-mat/0611743</a>.
      The original model: particles at constant speed that copy their neighbours' average direction,
      plus noise. The authors showed that a common direction appears once the noise is small enough
      or the particles are dense enough. Our <var>a</var> = 1 is their rule.</li>
    <li>C. W. Reynolds, "Flocks, herds, and schools: a distributed behavioral model", SIGGRAPH 1987,
      <a href="https://doi.org/10.1145/37401.37406" rel="noopener" target="_blank">doi:10.1145/37401.37406</a>.
      Computer-animated flocks from three local steering habits, one of which is matching the heading of
      nearby flockmates; see Lab 3.</li>
    <li>Related: Dirk Brockmann's "Horde of the Flies" in his <a href="https://www.complexity-explorables.org/" rel="noopener" target="_blank"><em>Complexity Explorables</em></a> is an
      independently made explorable of a similar model. Its design and code were not used here.</li>
  </ul>
  </div></div>`;
