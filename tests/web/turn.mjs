// Your turn, as a person sees it: the clock counts down to the deadline the game states, though a completed
// trick was held on the table first, and the stand-in plays when it has run out; a correspondence game's clock
// shows its deadline as a date; the optional turn sound is
// off by default, switched on in the table's settings, remembered, and quiet (no error) without Web Audio.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, createGame, dealIfAsked, openPage, scenario, screenshot, seenOnPage, tableState, waitForMyTurn } from "./browser.mjs";

const TIMEOUT_SECONDS = 15; // the shortest clock the form offers

/** Count the tones the page starts: every OscillatorNode started (the turn sound's notes). */
function countTones() {
  window.tones = 0;
  if (!window.OscillatorNode) return;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.tones += 1;
    return start.apply(this, args);
  };
}

/** A browser without Web Audio. */
function noAudio() {
  delete window.AudioContext;
  delete window.webkitAudioContext;
}

/** A game against two bots, this seat's first turn reached (dealing first when it is this seat's deal). */
async function startGame(page, { name, timeout = null }) {
  if (timeout) await page.selectOption("#create-timeout", String(timeout));
  const gameId = await createGame(page, { name, target: 30, seats: ["you", "bot:basic", "bot:basic"] });
  await dealIfAsked(page);
  await waitForMyTurn(page);
  return gameId;
}

/** Play this seat's first card and wait for its turn to come round again, the bots' cards shown. */
async function playRound(page) {
  const { version } = await tableState(page);
  await page.locator(".your-turn .card-button").first().click();
  await page.waitForFunction((seen) => Number(document.querySelector(".table")?.dataset.version) > seen, version);
  await waitForMyTurn(page);
}

const tones = (page) => page.evaluate(() => window.tones);

/** The game as the service has it now. */
const serverGame = (page, gameId) => page.evaluate((id) => fetch(`/v1/games/${id}`).then((answer) => answer.json()), gameId);

await scenario(async (browser) => {
  // The clock, with a trick pause long enough to be sure the turn was shown well after it began.
  const clock = await openPage(browser, { trickPauseMs: 1500 });
  const gameId = await startGame(clock, { name: "Ana", timeout: TIMEOUT_SECONDS });
  for (let round = 0; round < 16 && !(await seenOnPage(clock)).includes("trick-reason"); round += 1) await playRound(clock);
  assert.ok((await seenOnPage(clock)).includes("trick-reason"), "no completed trick was held on the table");
  // This seat's turn, shown after the trick was held: the clock counts to the service's deadline, not
  // to a full turn from the moment it was shown.
  const game = await serverGame(clock, gameId);
  assert.equal(game.turn, 0);
  const shown = await clock.locator(".turn-clock").evaluate((element) => ({ deadline: Number(element.dataset.deadline), seconds: Number(element.dataset.seconds) }));
  assert.equal(shown.deadline, Date.parse(game.turn_deadline), "the clock counts to another deadline than the game's");
  assert.ok(shown.seconds <= TIMEOUT_SECONDS, `the clock shows ${shown.seconds} s of a ${TIMEOUT_SECONDS} s turn`);
  // Let the time run out: the stand-in plays for this seat, at or after the deadline the clock counted to.
  await clock.locator(".log li", { hasText: "Your time ran out: a stand-in played" }).waitFor();
  const actions = await clock.evaluate((id) => fetch(`/v1/games/${id}/actions?limit=500`).then((answer) => answer.json()), gameId);
  const standIn = actions.items.find((action) => action.cause === "timeout");
  assert.ok(standIn && standIn.seat === 0, "no stand-in played for this seat");
  assert.ok(Date.parse(standIn.created_at) >= shown.deadline, "the stand-in played before the clock ran out");
  assertNoConsoleErrors(clock);

  // A correspondence game (three days a turn): the clock shows the deadline as a date, the game's own.
  const post = await openPage(browser);
  const postId = await startGame(post, { name: "Di", timeout: 3 * 24 * 60 * 60 });
  const label = await post.locator(".turn-clock").innerText();
  assert.match(label, /^Turn ends .*20\d\d/, label);
  const postGame = await serverGame(post, postId);
  assert.equal(Number(await post.locator(".turn-clock").getAttribute("data-deadline")), Date.parse(postGame.turn_deadline));
  await screenshot(post, "correspondence");
  assertNoConsoleErrors(post);

  // The turn sound: off by default, so a turn coming round is silent.
  const sound = await openPage(browser);
  await sound.addInitScript(countTones);
  await sound.reload();
  await sound.locator("#create-name").waitFor();
  await startGame(sound, { name: "Bo" });
  assert.equal(await sound.isChecked("#setting-sound"), false, "the turn sound is on by default");
  for (let round = 0; round < 3; round += 1) await playRound(sound);
  assert.equal(await tones(sound), 0, "a tone played with the sound off");
  // Switched on (a click, which lets the page make sound), it plays when the turn comes round again
  // (not in a round where this seat won a trick as its last player: then the turn never left it).
  await sound.check("#setting-sound");
  assert.equal(await sound.evaluate(() => localStorage.getItem("coins.turnSound")), "on");
  for (let round = 0; round < 6 && !(await tones(sound)); round += 1) await playRound(sound);
  assert.ok((await tones(sound)) > 0, "no tone played when the turn came round");
  // Remembered: after a reload the setting is still on.
  await sound.reload();
  await sound.locator("#setting-sound").waitFor();
  assert.equal(await sound.isChecked("#setting-sound"), true, "the turn sound was forgotten");
  assertNoConsoleErrors(sound);

  // A browser without Web Audio: the setting works and a turn comes round with no error.
  const silent = await openPage(browser);
  await silent.addInitScript(noAudio);
  await silent.reload();
  await silent.locator("#create-name").waitFor();
  assert.equal(await silent.evaluate(() => "AudioContext" in window), false);
  await startGame(silent, { name: "Cy" });
  await silent.check("#setting-sound");
  await playRound(silent);
  await playRound(silent);
  assertNoConsoleErrors(silent);
});
