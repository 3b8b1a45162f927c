// Sound (PhET's sonification), off by default.
//
// One soft tone whose pitch follows the whole-group agreement P (0 -> 220 Hz, 1 -> 660 Hz,
// an octave and a half: a flock lining up is heard rising), and a soft click when a threat
// is sent.  Web Audio only; nothing is created before the student presses "Sound" (a user
// gesture, which browsers require anyway), and the tone is silent while the lab is paused
// or hidden.  The pitch glides over about a second, so a step in P is never a jump.
//
// Reduced motion (prefers-reduced-motion), as PhET treats it: the tone is a sonification of
// the motion, so it never starts by itself.  Sound stays off by default, and the labs start
// paused (SPEC), so even with Sound on nothing is heard until the student presses Play; a lab
// opened later starts paused and silent too (tests/browser/test_access.py).

const F_LOW = 220;   // Hz at P = 0
const F_HIGH = 660;  // Hz at P = 1
const LEVEL = 0.035; // tone gain: quiet, under speech from a screen reader
const GLIDE = 0.35;  // s, time constant of pitch and level changes

/** Tone frequency (Hz) for an agreement P in [0, 1] (clamped; NaN -> the low end). */
export function pitchFor(P) {
  const p = Number.isFinite(P) ? Math.min(1, Math.max(0, P)) : 0;
  return F_LOW + (F_HIGH - F_LOW) * p;
}

export class Sonifier {
  constructor() {
    this.on = false;
    this.ctx = null;
    this.osc = null;
    this.gain = null;
    this.level = 0;
    this.freq = F_LOW;
  }

  /** Turn sound on or off (call from a click: the audio context starts on a user gesture). */
  setOn(on) {
    this.on = Boolean(on);
    if (this.on && !this.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) { this.on = false; return false; }
      this.ctx = new AC();
      this.gain = this.ctx.createGain();
      this.gain.gain.value = 0;
      this.gain.connect(this.ctx.destination);
      this.osc = this.ctx.createOscillator();
      this.osc.type = "sine";
      this.osc.frequency.value = this.freq;
      this.osc.connect(this.gain);
      this.osc.start();
    }
    if (this.ctx) {
      if (this.on && this.ctx.state === "suspended") this.ctx.resume();
      if (!this.on) this.setTone(false);
    }
    return this.on;
  }

  /** Follow the state: `playing` (tone audible) and the agreement P (pitch). */
  update(playing, P) {
    if (!this.ctx) return;
    this.freq = pitchFor(P);
    const now = this.ctx.currentTime;
    this.osc.frequency.setTargetAtTime(this.freq, now, GLIDE);
    this.setTone(this.on && playing);
  }

  setTone(audible) {
    if (!this.ctx) return;
    this.level = audible ? LEVEL : 0;
    this.gain.gain.setTargetAtTime(this.level, this.ctx.currentTime, GLIDE / 2);
  }

  /** A short soft click (a threat is sent). */
  click() {
    if (!this.ctx || !this.on) return;
    const t = this.ctx.currentTime;
    const o = this.ctx.createOscillator();
    const g = this.ctx.createGain();
    o.type = "triangle";
    o.frequency.setValueAtTime(1200, t);
    o.frequency.exponentialRampToValueAtTime(300, t + 0.06);
    g.gain.setValueAtTime(0.0001, t);
    g.gain.exponentialRampToValueAtTime(0.12, t + 0.005);
    g.gain.exponentialRampToValueAtTime(0.0001, t + 0.09);
    o.connect(g);
    g.connect(this.ctx.destination);
    o.start(t);
    o.stop(t + 0.1);
    this.clicks = (this.clicks || 0) + 1;
  }
}
