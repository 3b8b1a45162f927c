// Explanatory text of the Swarm Lab page (our own words; sources listed at the end).
// Formulas are MathML (rendered natively by current browsers; no CDN, no script).

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
const block = (label, body) =>
  `<div class="formula" role="group" aria-label="${label}"><math display="block">${body}</math></div>`;

const ui = sub(vec("u"), mi("i"));
const uj = sub(vec("u"), mi("j"));

const FORMULAS = [
  block("Separation", row(
    sub(vec("S"), mi("i")), mo("="), mi("cap1"),
    paren(row(`<munder>${mo("∑")}${row(mi("j"), mo("∈"), text("personal space"))}</munder>`,
      paren(mn("1"), mo("−"), frac(sub(mi("d"), mi("ij")), mn("3.2"))),
      paren(mo("−"), sub(`<mover accent="true">${mi("r")}<mo stretchy="false">ˆ</mo></mover>`, mi("ij"))))),
  )),
  block("Alignment", row(
    sub(vec("A"), mi("i")), mo("="), sub(text("mean"), row(mi("j"), mo("∈"), text("social"))), uj, mo("−"), ui,
  )),
  block("Cohesion", row(
    sub(vec("C"), mi("i")), mo("="), mi("cap1"),
    paren(frac(row(sub(text("mean"), mi("j")), sub(vec("r"), mi("ij"))), mi("R"))),
  )),
  block("Total steering", row(
    sub(vec("g"), mi("i")), mo("="),
    sub(mi("w"), mi("s")), sub(vec("S"), mi("i")), mo("+"),
    sub(mi("w"), mi("a")), sub(vec("A"), mi("i")), mo("+"),
    sub(mi("w"), mi("c")), sub(vec("C"), mi("i")), mo("+"),
    sub(vec("o"), mi("i")), mo("+"), sub(vec("h"), mi("i")),
    mo(","), `<mspace width="1em"/>`,
    sub(`<msup>${mi("θ")}${mo("*")}</msup>`, mi("i")), mo("="), text("direction of "), paren(ui, mo("+"), sub(vec("g"), mi("i"))),
  )),
  block("Heading update", row(
    sub(mi("θ"), mi("i")), mo("←"), sub(mi("θ"), mi("i")), mo("+"),
    mi("clip"), paren(frac(row(mi("wrap"), paren(sub(`<msup>${mi("θ")}${mo("*")}</msup>`, mi("i")), mo("−"), sub(mi("θ"), mi("i")))), text("0.42 s")), mo(","), mo("±"), text("3.2 rad/s")),
    mi("Δt"), mo("+"), mi("σ"), `<msqrt>${mi("Δt")}</msqrt>`, sub(mi("ξ"), mi("i")),
  )),
  block("Position update", row(
    sub(vec("x"), mi("i")), mo("←"), mi("wrap"), paren(sub(vec("x"), mi("i")), mo("+"), mi("v"), ui, mi("Δt")),
    mo(","), `<mspace width="1em"/>`, mi("Δt"), mo("="), frac(mn("1"), mn("60")), text(" s"),
  )),
  block("Whole-group agreement", row(
    mi("P"), mo("="), `<mrow><mo fence="true">|</mo>${frac(mn("1"), mi("N"))}<munderover>${mo("∑")}${row(mi("i"), mo("="), mn("1"))}${mi("N")}</munderover>${ui}<mo fence="true">|</mo></mrow>`,
    mo(","), `<mspace width="1em"/>`, mn("0"), mo("≤"), mi("P"), mo("≤"), mn("1"),
  )),
  block("Threat push", row(
    sub(vec("h"), mi("i")), mo("="), mn("4"), paren(mn("1"), mo("−"), frac(mi("d"), mn("22"))), text(" × (unit vector away from the threat),"),
    `<mspace width="0.5em"/>`, text("for "), mi("d"), mo("&lt;"), mn("22"),
  )),
];

export const EXPLAIN_HTML = `
<h2 id="swarm-rules">Three local rules, no leader</h2>
<p>Every animal in this model follows the same three habits, and each habit only uses what is close by.
Nobody knows the shape of the group, where it is going, or who is at the front.</p>
<ul>
  <li><strong>Separation (personal space).</strong> Anyone closer than 3.2 lengths, in any direction, pushes the animal away,
  and the push grows as the gap shrinks. It is a steering urge, not a collision: two animals can still overlap.</li>
  <li><strong>Alignment.</strong> The animal turns towards the average heading of its social neighbours.</li>
  <li><strong>Cohesion.</strong> The animal turns towards the average position of its social neighbours, more strongly the further away that centre is (up to a cap).</li>
</ul>
<p>The three urges are added with their weights and the animal turns towards the combined direction,
faster when the gap is larger (the gap shrinks on a time scale of 0.42 s) but never faster than 3.2 rad/s. A little random wobble is added,
and it moves on at the common speed along its new heading. Everyone decides from the same snapshot before anyone moves.
Switch a rule off while the group is moving and watch what changes first: the picture, the agreement chart or the spacing chart.</p>

<h2 id="swarm-neighbours">Who counts as a neighbour: a range, or the nearest few</h2>
<p>Social neighbours have to be in front or to the side: each animal has a 270° field of view, so the 90° wedge behind it is blind.
In <em>range</em> mode every visible animal within the range R counts, so a dense patch gives many neighbours and a sparse one few.
In <em>nearest-few</em> mode only the k closest visible animals within R count, however crowded it is.</p>
<p>Why offer the second mode? Ballerini and colleagues (2008) reconstructed wild starling flocks in three dimensions and found
that each bird keeps track of a roughly fixed number of neighbours, about six or seven, rather than of every bird within a fixed distance.
They argued that counting neighbours instead of measuring distance keeps a flock together when its density changes, for example when a predator attacks.
Try both modes with a large population and then with a small one, and with a small range R.</p>

<h2 id="swarm-agreement">Agreement is only one kind of order</h2>
<p>The whole-group agreement P is the length of the average heading arrow: 1 when everyone points the same way, near 0 when the arrows cancel.
The local agreement does the same for each animal and its social neighbours, then averages over every animal that has at least one neighbour.
Read them with care:</p>
<ul>
  <li>A <strong>mill</strong>, animals circling a common centre, is highly organised, yet its headings point all around the circle and P is close to 0.
  Fish schools switch between polarised groups, mills and loose swarms (Tunstrøm et al. 2013). The rotation readout is high for a mill.</li>
  <li><strong>Two groups</strong> that are each perfectly aligned but travel in opposite directions cancel each other in P, while the local agreement stays high.</li>
  <li>Even <strong>random headings</strong> give a small P above zero because the sample is finite: on average about 0.89/√N, roughly 0.07 for 150 animals.</li>
  <li><strong>Local agreement</strong> can creep up with every rule switched off: animals that happen to head the same way stay neighbours,
  while the others drift apart. Compare it with a run where the rules are on before reading it as coordination.</li>
  <li>A high P on its own proves neither that the group <strong>holds together</strong> (aligned animals can be scattered across the world; look at the spacing chart)
  nor that <strong>information spreads</strong> between them (they could share the direction by chance or by a common cue).</li>
</ul>

<h2 id="swarm-disturbances">Who reacted to what</h2>
<p><strong>Turn one individual</strong> adds 60° to the heading of the selected animal, and to nothing else: no one else turns at that instant and no one moves.
In the next steps the animals that count it as a social neighbour feel the change through alignment and cohesion, then their own neighbours feel them, and so on.
Whether the turn spreads through the group or is simply absorbed depends on the weights, the neighbourhood and the uncertainty.
Select a neighbour of the turned animal and watch its arrows.</p>
<p><strong>Send a threat</strong> starts a red marker near the selected animal. It follows a fixed wavy path across the world for 12 s and then disappears.
Animals inside its 22-length ring are steered away from it, hardest when closest. Animals outside the ring feel nothing directly,
so if they turn anyway, the news reached them through their neighbours. The threat never chases, catches or removes anyone.
Every setting change and disturbance leaves a marker on both charts, so you can compare before and after.</p>

<h2 id="swarm-formulas">The model in formulas</h2>
<p>Vectors are bold. <b>u</b> = (cos θ, sin θ) is an animal's heading; <b>r</b><sub>ij</sub> is the shortest way from i to j across the
periodic edges, d<sub>ij</sub> its length and r̂<sub>ij</sub> its direction. cap1 shortens a vector to length 1 if it is longer.
A rule with no neighbours contributes nothing; a rule that is switched off has weight 0. <b>o</b> is obstacle avoidance and <b>h</b> the threat.</p>
${FORMULAS.join("\n")}
<p>ξ<sub>i</sub> is a standard normal number fixed by (sample, animal, time step), so a sample replays exactly at any playback speed;
σ is the uncertainty, shown in degrees per √second and converted to radians in the formula; unlike the turning, the random part is not capped. The world is 160 × 100 lengths and wraps around at the edges.
The spacing chart shows the mean distance from each animal to its nearest other animal, and the share of animals whose nearest other is closer than 1.2 lengths.
Agreement and spacing are sampled every 0.25 model seconds.</p>

<h2 id="swarm-scope">What this model leaves out</h2>
<ul>
  <li>It is flat: two dimensions only, although starlings and many fish schools move in three.</li>
  <li>No learning, no leaders, and no differences between individuals: everyone has the same speed, senses and weights.</li>
  <li>No occlusion (an animal sees through its neighbours), no reaction delay, no energy budget, no air or water flow.</li>
  <li>Lengths, seconds and weights are illustrative, not measured values of any species.</li>
  <li>One run is one sample of a random process. Before drawing a conclusion, change the sample number and repeat: what happens in most samples matters more than what happened once.</li>
</ul>

<h2 id="swarm-sources">Sources</h2>
<ul class="sources">
  <li>Reynolds, C. W. (1987). Flocks, herds, and schools: a distributed behavioral model. <i>Computer Graphics (SIGGRAPH ’87 Proceedings)</i>, 21(4), 25–34.</li>
  <li>Ballerini, M., Cabibbo, N., Candelier, R., et al. (2008). Interaction ruling animal collective behavior depends on topological rather than metric distance: evidence from a field study. <i>PNAS</i>, 105(4), 1232–1237.</li>
  <li>Tunstrøm, K., Katz, Y., Ioannou, C. C., Huepe, C., Lutz, M. J., Couzin, I. D. (2013). Collective states, multistability and transitional behavior in schooling fish. <i>PLoS Computational Biology</i>, 9(2), e1002915.</li>
</ul>
`;
