// The optional turn sound: off by default, remembered in localStorage, a short tone made with the Web Audio API.

const SETTING_KEY = "coins.turnSound";
const TONE_HZ = [660, 880]; // two short notes, rising
const NOTE_SECONDS = 0.14;
const VOLUME = 0.2;

/** @type {AudioContext|null} */
let context = null;

/** Whether this browser wants the turn sound (it is off until switched on). */
export const turnSoundOn = () => localStorage.getItem(SETTING_KEY) === "on";

/**
 * Switch the turn sound on or off and remember it. Switching on is a click: the audio is
 * unlocked then, as browsers only let a page make sound after the person touched it.
 * @param {boolean} on
 */
export function setTurnSound(on) {
  if (on) localStorage.setItem(SETTING_KEY, "on");
  else localStorage.removeItem(SETTING_KEY);
  if (on) unlockAudio();
}

/**
 * The audio context, made (or resumed) on a person's click or key press; null where the
 * browser has no Web Audio or refuses it. Never throws: a page without sound still plays.
 */
export function unlockAudio() {
  const Context = window.AudioContext ?? /** @type {any} */ (window).webkitAudioContext;
  if (!Context) return null;
  try {
    context ??= /** @type {AudioContext} */ (new Context());
    if (context.state === "suspended") context.resume().catch(() => {});
  } catch {
    context = null;
  }
  return context;
}

/**
 * Play the turn tone if the sound is on and the browser can: two short rising notes that
 * fade in and out (no clicks). Returns whether a tone was started.
 */
export function playTurnSound() {
  if (!turnSoundOn()) return false;
  const audio = unlockAudio();
  if (!audio || audio.state !== "running") return false;
  try {
    const start = audio.currentTime + 0.01;
    TONE_HZ.forEach((hz, index) => {
      const at = start + index * NOTE_SECONDS;
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = "sine";
      oscillator.frequency.value = hz;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(VOLUME, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + NOTE_SECONDS);
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start(at);
      oscillator.stop(at + NOTE_SECONDS + 0.01);
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * The turn's alert for one table: `update(yourTurn)` after each render plays the tone when the
 * turn becomes this seat's (not for the state the page opened on, which the person is looking
 * at). Meanwhile any click or key press on the page unlocks the audio; `stop()` lets go.
 */
export function turnAlert() {
  /** @type {boolean|null} */
  let was = null;
  const unlock = () => turnSoundOn() && unlockAudio();
  document.addEventListener("pointerdown", unlock);
  document.addEventListener("keydown", unlock);
  return {
    /** @param {boolean} yourTurn */
    update(yourTurn) {
      if (was === false && yourTurn) playTurnSound();
      was = yourTurn;
    },
    stop() {
      document.removeEventListener("pointerdown", unlock);
      document.removeEventListener("keydown", unlock);
    },
  };
}
