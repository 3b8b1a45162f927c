// Lab 3's story beyond the model (our own words): emergence, nature, robots, takeaways.
// Static HTML only.

export const STORY_HTML = `
  <section class="panel explain bd-story" aria-labelledby="bd-story-h">
  <h2 id="bd-story-h">Emergence: a flock that nobody plans</h2>
  <p>Read the three rules again: none of them says where the flock should go, how big it should be or what shape
  to take. Each one is a little arithmetic on a boid's few neighbours. Yet on the screen you see something that looks
  like it has a purpose: streams that wheel together, split round each other and merge. Behaviour of the whole that is
  written nowhere in the parts, and appears from their local interactions, is called <strong>emergence</strong>.</p>

  <h2>Nature got there first</h2>
  <p>Fish show the same three impulses. A herring school that meets a predator bursts open around it and closes again
  behind it, with no fish giving orders: each one keeps its distance, matches its neighbours and stays close to them.
  The rules do not care whether the body has wings or fins; they only need an animal that can sense the few others
  around it and steer.</p>

  <h2>And robots followed</h2>
  <p>Engineers use the same idea for drone swarms, warehouse fleets, search-and-rescue robots and underwater vehicles.
  With three local rules and sensing of nearby robots, a swarm coordinates without a central computer: there is no
  leader whose failure grounds everyone, no single point of failure, and the radio traffic does not explode as the
  swarm grows, because each robot talks only to its neighbours. Remove half of the swarm and the rest keeps flocking
  (try it here: lower the number of boids while they fly). Many drone light shows work differently: a central computer
  plans every path in advance, so those are choreography, not flocking. Engineers still have to check what local rules
  produce, which is exactly what you can do with the sliders here.</p>

  <h2>Key takeaways</h2>
  <ol class="bd-takeaways">
    <li><strong>Three local rules are enough</strong> to turn scattered boids into a flock.</li>
    <li><strong>Purely local:</strong> each boid uses only its neighbours, so while each keeps the same few (a bigger flock spreads over more sky), the work per boid does not grow from ten boids to ten thousand.</li>
    <li><strong>Emergence:</strong> the flock's motion is written in no rule; it comes from the interactions.</li>
    <li><strong>Robust because decentralised:</strong> no leader to lose, so losing some members does not stop the rest.</li>
  </ol>
  <p class="bd-note">Reynolds published boids at SIGGRAPH in 1987 (the work dates from 1986–87) as a way to animate
  flocks; the resemblance to real flocks is what made it famous, not proof that birds compute these sums.</p>
  </section>`;
