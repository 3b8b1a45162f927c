// Explanatory text of the Swarm Lab page (our own words; sources listed at the end).
// Formulas are MathML (rendered natively by current browsers; no CDN, no script).
// Every model number quoted here comes from the engine: explainHtml(C) takes the session's
// constants (sessions/swarm.py, SwarmSession.constants), so a constant changed in Python
// changes these words too.

import { num, say } from "../../ui/dom.js";

const mi = (x) => `<mi>${x}</mi>`;
const mo = (x) => `<mo>${x}</mo>`;
const mn = (x) => `<mn>${x}</mn>`;
const sub = (a, b) => `<msub>${a}${b}</msub>`;
// Bold vectors: MathML Core renders only mathvariant="normal", so a class makes them bold.
const vec = (x) => `<mi class="mvec">${x}</mi>`;
const frac = (a, b) => `<mfrac><mrow>${a}</mrow><mrow>${b}</mrow></mfrac>`;
const row = (...xs) => `<mrow>${xs.join("")}</mrow>`;
const paren = (...xs) => row(mo("("), ...xs, mo(")"));
// leading/trailing spaces of <mtext> are dropped by renderers: keep them as no-break spaces
const text = (t) => `<mtext>${t.replace(/^ | $/g, "\u00a0")}</mtext>`;
// A formula of one or more pieces: on a narrow screen the pieces wrap onto lines of their own
// (MathML Core has no line breaking inside a <math>), side by side where they fit.
const block = (label, ...pieces) =>
  `<div class="formula formula-pieces" role="group" aria-label="${label}">${
    pieces.map((p) => `<math displaystyle="true">${p}</math>`).join("")}</div>`;

const ui = sub(vec("u"), mi("i"));
const uj = sub(vec("u"), mi("j"));


const formulas = (C) => [
  block("Separation", row(
    sub(vec("S"), mi("i")), mo("="), mi("cap1"),
    paren(row(`<munder>${mo("∑")}${row(mi("j"), mo("∈"), text("personal space"))}</munder>`,
      paren(mn("1"), mo("−"), frac(sub(mi("d"), mi("ij")), mn(C.personal))),
      paren(mo("−"), sub(`<mover accent="true">${mi("r")}<mo stretchy="false">ˆ</mo></mover>`, mi("ij"))))),
  )),
  block("Alignment", row(
    sub(vec("A"), mi("i")), mo("="), sub(text("mean"), row(mi("j"), mo("∈"), text("social"))), uj, mo("−"), ui,
  )),
  block("Cohesion", row(
    sub(vec("C"), mi("i")), mo("="), mi("cap1"),
    paren(frac(row(sub(text("mean"), row(mi("j"), mo("∈"), text("social"))), sub(vec("r"), mi("ij"))), mi("R"))),
  )),
  block("Total steering", row(
    sub(vec("g"), mi("i")), mo("="),
    sub(mi("w"), mi("s")), sub(vec("S"), mi("i")), mo("+"),
    sub(mi("w"), mi("a")), sub(vec("A"), mi("i")), mo("+"),
    sub(mi("w"), mi("c")), sub(vec("C"), mi("i")), mo("+"),
    sub(vec("o"), mi("i")), mo("+"), sub(vec("h"), mi("i")), mo(","),
  ), row(
    sub(`<msup>${mi("θ")}${mo("*")}</msup>`, mi("i")), mo("="), text("direction of "), paren(ui, mo("+"), sub(vec("g"), mi("i"))),
  )),
  block("Heading update", row(
    sub(mi("θ"), mi("i")), mo("←"), sub(mi("θ"), mi("i")),
  ), row(
    mo("+"), mi("clip"), paren(frac(row(mi("wrap"), paren(sub(`<msup>${mi("θ")}${mo("*")}</msup>`, mi("i")), mo("−"), sub(mi("θ"), mi("i")))), text(`${C.response_time} s`)), mo(","), mo("±"), text(`${C.max_turn} rad/s`)),
    mi("Δt"),
  ), row(
    mo("+"), mi("σ"), `<msqrt>${mi("Δt")}</msqrt>`, sub(mi("ξ"), mi("i")),
  )),
  block("Position update", row(
    sub(vec("x"), mi("i")), mo("←"), mi("wrap"), paren(sub(vec("x"), mi("i")), mo("+"), mi("v"), ui, mi("Δt")), mo(","),
  ), row(
    mi("Δt"), mo("="), frac(mn("1"), mn(Math.round(1 / C.dt))), text(" s"),
  )),
  block("Whole-group agreement", row(
    mi("P"), mo("="), `<mrow><mo fence="true">|</mo>${frac(mn("1"), mi("N"))}<munderover>${mo("∑")}${row(mi("i"), mo("="), mn("1"))}${mi("N")}</munderover>${ui}<mo fence="true">|</mo></mrow>`, mo(","),
  ), row(
    mn("0"), mo("≤"), mi("P"), mo("≤"), mn("1"),
  )),
  block("Threat push", row(
    sub(vec("h"), mi("i")), mo("="), mn(C.threat_strength), paren(mn("1"), mo("−"), frac(mi("d"), mn(C.threat_radius))),
  ), row(
    text("× (unit vector away from the threat),"),
  ), row(
    text("for "), mi("d"), mo("&lt;"), mn(C.threat_radius),
  )),
];

/** The explanation's HTML, quoting the engine's constants ``C`` (the session's layout().constants). */
export function explainHtml(C) {
  const [circle] = C.obstacles.circle;
  const [top, bottom] = C.obstacles.passage;
  const [W, H] = C.world;
  return `
<h2 id="swarm-rules">Each animal, three habits, nobody in charge</h2>
<p>Every animal in this model follows the same three habits, and each habit only uses what is close by.
Nobody knows the shape of the group, where it is going, or who is at the front.</p>
<ul>
  <li><strong>Separation (personal space).</strong> Anyone closer than ${C.personal} lengths, in any direction, pushes the animal away,
  and the push grows as the gap shrinks. It is a steering urge, not a collision: two animals can still overlap.</li>
  <li><strong>Alignment.</strong> The animal turns towards the average heading of its social neighbours.</li>
  <li><strong>Cohesion.</strong> The animal turns towards the average position of its social neighbours, more strongly the further away that centre is (up to a cap).</li>
</ul>
<p>The three urges are added with their weights and the animal turns towards the combined direction,
faster when the gap is larger (the gap shrinks on a time scale of ${C.response_time} s) but never faster than ${C.max_turn} rad/s. A little random wobble is added,
and it moves on at the common speed along its new heading. Everyone decides from the same snapshot before anyone moves.
Switch a rule off while the group is moving and watch what changes first: the picture, the agreement chart or the spacing chart.</p>
<p><strong>The charts only watch.</strong> No animal is ever told the group's centre, its average direction or a place to go:
each one updates from what it senses nearby, and the measurements are taken afterwards, from outside. The plots never steer anyone.</p>
<p>These habits come from Craig Reynolds' boids (1987), a distributed model he made for computer animation; this lab uses his
ideas with its own explicit 2-D update rules. That the result looks like a real flock is a hypothesis about animals, not proof that
birds or fish run this algorithm.</p>
<p><strong>Self-propelled, not pushed.</strong> The animals are "active matter": the model gives each one its speed and changes only its
heading, by behavioural rules. Nothing here conserves energy or momentum; real animals power their motion with their muscles and feel
the air or water around them, which is left out. The world's edges are joined, so there is no centre that everything is drawn to.</p>

<h2 id="swarm-neighbours">Who counts as a neighbour: a range, or the nearest few</h2>
<p>Social neighbours have to be in front or to the side: each animal has a ${C.fov_deg}° field of view, so the ${360 - C.fov_deg}° wedge behind it is blind.
In <em>range</em> mode every visible animal within the range R counts, so a dense patch gives many neighbours and a sparse one few.
In <em>nearest-few</em> mode only the k closest visible animals within R count, however crowded it is.</p>
<p>Why offer the second mode? Ballerini and colleagues (2008) reconstructed wild starling flocks in three dimensions and found
that each bird keeps track of a roughly fixed number of neighbours, about six or seven, rather than of every bird within a fixed distance.
They argued that counting neighbours instead of measuring distance keeps a flock together when its density changes, for example when a predator attacks.
Try both modes with a large population and then with a small one, and with a small range R.</p>
<p>Their finding motivates the nearest-few mode; it is not a rule for all birds or fish, and our range mode is not a copy of their
analysis. In both modes here an animal still senses only within the range R.</p>

<h2 id="swarm-agreement">Agreement is only one kind of order</h2>
<p>The whole-group agreement P is the length of the average heading arrow: 1 when everyone points the same way, near 0 when the arrows cancel.
The other two labs measure the same P and call it the ${C.p_elsewhere}.
The local agreement does the same for each animal and its social neighbours, then averages over every animal that has at least one neighbour.
Read them with care:</p>
<ul>
  <li>A <strong>mill</strong>, animals circling a common centre, is highly organised, yet its headings point all around the circle and P is close to 0.
  Golden shiners switch between loose swarms, aligned travelling groups and mills (Tunstrøm et al. 2013), which is why this lab measures more
  than one property. The rotation readout is high for a mill, but neither it nor the other plots classify a biological state, and under
  these teaching rules not every state need appear. It is the size of the average of r̂<sub>i</sub> × u<sub>i</sub> (r̂<sub>i</sub> the
  direction from the centre of <em>all</em> the animals to animal i, u<sub>i</sub> its heading), the part of each heading that goes
  round that centre: one compact group circling that centre reads near 1, but
  several groups flying straight in different directions around it can read high too, so look at the picture before calling it a mill.</li>
  <li><strong>Two groups</strong> that are each perfectly aligned but travel in opposite directions cancel each other in P, while the local agreement stays high.</li>
  <li>Even <strong>random headings</strong> give a small P above zero because the sample is finite: on average about ${C.random_p_coefficient.toFixed(2)}/√N, roughly ${C.random_p_default.toFixed(2)} for ${num(C.n_default)} animals.</li>
  <li><strong>Local agreement</strong> is high by chance when neighbourhoods are small: the average of an animal's own heading and two or
  three random ones is about half as long as one arrow, so with two or three neighbours it reads about 0.5 even when nobody aligns.
  With every rule switched off it first shoots far above that level: within a few seconds of a loose start it reads close to 0.9,
  because animals that happen to fly the same way stay in each other's view while the others drift out of it. That is sorting by
  motion, not coordination. As the animals spread out it falls back to about 0.5, some ten seconds later. So wait that long before
  switching a rule on, and compare with a run where the rules are on, at a similar spacing, before reading it as coordination.</li>
  <li>A high P on its own proves neither that the group <strong>holds together</strong> (aligned animals can be scattered across the world; look at the spacing chart),
  nor that the order is <strong>stable</strong> (it can break up a moment later), nor that <strong>information spreads</strong> between them (they could share the direction by chance or by a common cue).</li>
  <li>Agreement is shown from 0 to 1: 1 means every heading matches, whatever the readout's number of decimals.</li>
</ul>

<h2 id="swarm-disturbances">Who reacted to what</h2>
<p><strong>Turn one individual</strong> adds ${C.turn_one_deg}° to the heading of the selected animal, and to nothing else: no one else turns at that instant and no one moves.
In the next steps the animals that count it as a social neighbour feel the change through alignment at once, and through cohesion as the turned animal moves off (a turn moves no one), then their own neighbours feel them, and so on.
Whether the turn spreads through the group or is simply absorbed depends on the weights, the neighbourhood and the uncertainty.
Select a neighbour of the turned animal and watch its arrows.</p>
<p><strong>Send a threat</strong> starts a red marker near the selected animal. It follows a fixed wavy path across the world for ${C.threat_seconds} s and then disappears.
Animals inside its ${C.threat_radius}-length ring are steered away from it, hardest when closest. Animals outside the ring feel nothing directly,
so if they turn anyway, the news reached them through their neighbours. The threat never chases, catches or removes anyone.
Every setting change and disturbance leaves a marker on both charts, so you can compare before and after.</p>
<p><strong>An outside signal is not coordination.</strong> The threat pushes only the animals inside its ring, and an obstacle adds a local
steering signal and limits the paths; any turn further away is social. A contrast worth trying: a single ${C.turn_one_deg}° turn with no threat, then the
threat with alignment switched off. Neither outcome needs a leader.</p>

<h2 id="swarm-obstacles">Obstacles</h2>
<p>The <em>circle</em> has radius ${circle[2]} lengths and sits at (${circle[0]}, ${circle[1]}). The <em>narrow passage</em> is two circles of radius ${top[2]} lengths at (${top[0]}, ${top[1]}) and (${bottom[0]}, ${bottom[1]}):
their inner edges leave a ${C.passage_gap}-length gap, and because the world wraps they join across the top and bottom edge into one wall with one gap.
Each animal checks the boundary at two points, where it is and where it would be ${C.obstacle_lookahead} s ahead if it flew straight on, and steers outward at
each point that is within ${C.obstacle_band} lengths of the boundary. If a step still ends inside, the animal is moved to the nearest point ${C.obstacle_margin} lengths outside
and the part of its heading pointing inward is reflected: a safeguard, not realistic contact. Choosing an obstacle at once moves any animal
that was inside it.</p>

<h2 id="swarm-formulas">The model in formulas</h2>
<p>Vectors are bold. <b>u</b> = (cos θ, sin θ) is an animal's heading; <b>r</b><sub>ij</sub> is the shortest way from i to j across the
periodic edges, d<sub>ij</sub> its length and r̂<sub>ij</sub> its direction. cap1 shortens a vector to length 1 if it is longer.
A rule with no neighbours contributes nothing; a rule that is switched off has weight 0 (its weight slider keeps its value).
<b>o</b><sub>i</sub> is obstacle avoidance: the sum of the outward pushes at the animal's position and at its ${C.obstacle_lookahead} s look-ahead,
each ${C.obstacle_strength}(1 − s/${C.obstacle_band}) along the boundary's outward direction for a point at distance s &lt; ${C.obstacle_band} from it
(${C.obstacle_strength} inside), and zero with no obstacle. <b>h</b><sub>i</sub> is the threat's push, ${C.threat_strength}(1 − d/${C.threat_radius}) straight away from the threat for an
animal at distance d &lt; ${C.threat_radius}, and zero otherwise.</p>
${formulas(C).join("\n")}
<p>ξ<sub>i</sub> is a standard normal number fixed by (sample, animal, time step), so a sample replays exactly at any playback speed;
σ is the uncertainty, shown in degrees per √second and converted to radians in the formula; unlike the turning, the random part is not capped. The world is ${W} × ${H} lengths and wraps around at the edges.
The spacing chart shows the mean distance from each animal to its nearest other animal, and the share of animals whose nearest other is closer than ${C.very_close} lengths.
Agreement and spacing are sampled every ${C.sample_seconds} model seconds.</p>
<p><strong>Update details.</strong> Every animal reads the same old state before any animal moves. In nearest-few mode, ties in distance go to
the animal with the smaller ID. If <b>u</b><sub>i</sub> + <b>g</b><sub>i</sub> is exactly zero the animal keeps its heading. Two animals at exactly
the same point are pushed apart in opposite, fixed directions.</p>
<p><strong>History and limits.</strong> The charts keep the whole run: up to about ${num(C.history_capacity)} samples per series, after which every other sample is
dropped and sampling halves, so the whole run stays visible. At ${say(C.time_limit_s / 60)} model minutes the run pauses; Continue carries on with the same state and
history. A hidden page freezes the run, and if your system asks for reduced motion the lab starts paused. Playback speed changes only how fast
you watch: the run is the same at every speed.</p>

<h2 id="swarm-scope">What this model leaves out</h2>
<ul>
  <li>It is flat: two dimensions only, no altitude or depth, although starlings and many fish schools move in three.</li>
  <li>No learning, no leaders, and no differences between individuals: everyone has the same speed, senses and weights.</li>
  <li>No occlusion (an animal sees through its neighbours), no reaction delay, no metabolism or energy budget,
  no flight or swimming mechanics and no wakes in the air or water.</li>
  <li>Lengths, seconds and weights are illustrative, not measured values of any species, and nothing is fitted to data.</li>
  <li>The two starts (a loose patch, or scattered) are set-ups, not a forecast of a real population, and nothing here is validated against tracks of real animals.</li>
  <li>One run is one sample of a random process. Before drawing a conclusion, change the sample number and repeat: what happens in most samples matters more than what happened once.</li>
</ul>

<h2 id="swarm-sources">Sources</h2>
<ul class="sources">
  <li>Reynolds, C. W. (1987). Flocks, herds, and schools: a distributed behavioral model. <i>Computer Graphics (SIGGRAPH ’87 Proceedings)</i>, 21(4), 25–34, <a href="https://doi.org/10.1145/37401.37406" rel="noopener" target="_blank">doi:10.1145/37401.37406</a>.</li>
  <li>Reynolds, C. W. Boids: Background and Update (web page on the three steering behaviours and their later uses), <a href="https://www.red3d.com/cwr/boids/" rel="noopener" target="_blank">red3d.com/cwr/boids</a>.</li>
  <li>Ballerini, M., Cabibbo, N., Candelier, R., et al. (2008). Interaction ruling animal collective behavior depends on topological rather than metric distance: evidence from a field study. <i>PNAS</i>, 105(4), 1232–1237, <a href="https://doi.org/10.1073/pnas.0711437105" rel="noopener" target="_blank">doi:10.1073/pnas.0711437105</a>.</li>
  <li>Tunstrøm, K., Katz, Y., Ioannou, C. C., Huepe, C., Lutz, M. J., Couzin, I. D. (2013). Collective states, multistability and transitional behavior in schooling fish. <i>PLoS Computational Biology</i>, 9(2), e1002915, <a href="https://doi.org/10.1371/journal.pcbi.1002915" rel="noopener" target="_blank">doi:10.1371/journal.pcbi.1002915</a>.</li>
</ul>
`;
}
