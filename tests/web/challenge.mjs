// Challenges in two browsers: Ana challenges Bo from his profile (clock, target, rated); Bo sees the challenge in
// his lobby and accepts, and the game starts; Ana challenges him again, Bo declines, and Ana's table shows the game
// cancelled; Bo then refuses challenges, and his profile says so to Ana.

import assert from "node:assert/strict";

import { STEP_MS, assertAccessible, assertNoConsoleErrors, openPage, postsTo, scenario, screenshot } from "./browser.mjs";

/** Create a player by name in the lobby's player panel (the guest's Play gives way to Play now); returns the player's id. */
async function createPlayer(page, name) {
  assert.equal(await page.locator("#play-first").count(), 1, "a guest's first screen has Play");
  await page.fill("#player-name", name);
  await page.click("#player-create button[type=submit]");
  await page.locator("#play-now").waitFor();
  assert.equal(await page.locator("#play-first, #intro-title").count(), 0, "signed in, the guest's Play line stays");
  return page.evaluate(() => JSON.parse(localStorage.getItem("coins.player") ?? "null").id);
}

const base = (page) => page.url().split("#")[0];
const gameIdOf = (page) => decodeURIComponent(new URL(page.url()).hash.split("/")[2]);

/** From Bo's profile, Ana challenges him; she lands at the game's table, waiting for him. */
async function challenge(ana, boId, { shoot = false } = {}) {
  await ana.goto(`${base(ana)}#/player/${boId}`);
  await ana.locator("#challenge-form").waitFor();
  // The clock in human units, within the contract's bounds (a minute to 14 days), not a box of seconds.
  assert.deepEqual(await ana.locator("#challenge-clock option").allInnerTexts(), ["1 min", "5 min", "1 h", "1 day", "3 days", "7 days", "14 days"]);
  await ana.selectOption("#challenge-clock", "300");
  await ana.fill("#challenge-target", "5");
  await ana.selectOption("#challenge-third", "bot:basic");
  await ana.check("#challenge-rated");
  if (shoot) {
    await screenshot(ana, "challenge-profile");
    await assertAccessible(ana, "a profile's challenge form");
  }
  await ana.dblclick("#challenge-send"); // a double click sends one challenge
  await ana.locator(".table[data-status=waiting_for_players]").waitFor({ timeout: STEP_MS });
  // No seat is open (Bo's is reserved): the table waits for Bo by name, with no empty invitation or fair-deal panel.
  // ... and says until when (the game's expires_at: a day unless the challenge says otherwise).
  assert.match(await ana.locator(".status-line").innerText(), /^Waiting for Bo to accept the challenge, until .*20\d\d/);
  assert.equal(await ana.locator("#invite-title, #fair-title").count(), 0, "an empty panel's heading");
  return gameIdOf(ana);
}

await scenario(async (browser) => {
  const ana = await openPage(browser);
  const bo = await openPage(browser);
  await createPlayer(ana, "Ana");
  const boId = await createPlayer(bo, "Bo");

  // Accepted: the game starts, rated, with Ana's clock.
  const accepted = await challenge(ana, boId, { shoot: true });
  const incoming = bo.locator(`[data-challenge=incoming][data-game="${accepted}"]`);
  await incoming.waitFor({ timeout: STEP_MS }); // the lobby's lists refresh themselves
  // Every seat named, the clock in human units, Accept and Decline side by side.
  assert.match(await incoming.innerText(), /Ana challenges you to a game of 5 points with Basic bot \(5 min a turn\)\./);
  assert.equal(await incoming.locator("[data-rated]").innerText(), "Rated game"); // a badge that says what it is, not a bare word
  for (const key of ["accept", "decline"]) { // described by their challenge: several Accepts in a row are told apart
    const description = await incoming.locator(`[data-key=${key}]`).evaluate((button) => document.getElementById(button.getAttribute("aria-describedby") ?? "")?.textContent ?? "");
    assert.match(description, /^Ana challenges you/, `${key} is not described by its challenge`);
  }
  const [accept, decline] = [await incoming.locator("[data-key=accept]").boundingBox(), await incoming.locator("[data-key=decline]").boundingBox()];
  assert.ok(Math.abs(accept.y - decline.y) < 4 && decline.x - (accept.x + accept.width) < 24, `Accept and Decline apart: ${JSON.stringify([accept, decline])}`);
  await screenshot(bo, "challenge-lobby");
  await assertAccessible(bo, "the lobby with a challenge");
  await incoming.locator("[data-key=accept]").dblclick(); // one answer
  await bo.locator(".table:not([data-status=waiting_for_players])").waitFor({ timeout: STEP_MS });
  assert.equal(gameIdOf(bo), accepted);
  await ana.locator(".table:not([data-status=waiting_for_players])").waitFor({ timeout: STEP_MS });
  const game = await bo.evaluate(async (id) => (await fetch(`/v1/games/${id}`)).json(), accepted);
  assert.equal(game.rated, true);
  assert.equal(game.turn_timeout_seconds, 300);
  assert.equal(game.seats[1].player, boId);
  assert.equal(postsTo(ana, "/v1/games"), 1, "a double click on Challenge made two games");
  assert.equal(postsTo(bo, `/v1/games/${accepted}/players`), 1, "a double click on Accept answered twice");

  // Bo's profile, as Ana reads it: Bo by name, never "you"; whoever is to act by name; dates in the page's language.
  await ana.goto(`${base(ana)}#/player/${boId}`);
  const line = ana.locator(`.own-games [data-game="${accepted}"]`);
  await line.waitFor();
  const text = await line.innerText();
  assert.match(text, /Bo 0, against Ana 0, Basic bot 0/, text);
  assert.doesNotMatch(text, /\byou\b|your turn|seat \d to act/i, text);
  if (/playing/.test(text)) assert.match(text, /(Ana|Bo|Basic bot) to act/, text);
  await ana.selectOption("#language", "fr");
  await ana.locator("#profile-games", { hasText: "Parties" }).waitFor();
  const french = await line.innerText();
  assert.match(french, /^Partie du \d{1,2} \S+ \d{4}/, french);
  assert.doesNotMatch(french, /\b(AM|PM)\b/, french);
  await ana.selectOption("#language", "en");

  // Declined: the game is cancelled, and Ana's table says so.
  await bo.goto(`${base(bo)}#/`);
  const declined = await challenge(ana, boId);
  const again = bo.locator(`[data-challenge=incoming][data-game="${declined}"]`);
  await again.waitFor({ timeout: STEP_MS });
  await again.locator("[data-key=decline]").click();
  await again.waitFor({ state: "detached", timeout: STEP_MS });
  await ana.locator(".table[data-status=cancelled]").waitFor({ timeout: STEP_MS });
  assert.match(await ana.locator(".table").innerText(), /cancelled before it started/);
  await ana.locator(".log", { hasText: "The challenge was declined" }).waitFor({ timeout: STEP_MS });
  assert.notEqual(await ana.locator(".live").getAttribute("data-live"), "live", "a cancelled game's log says Live");
  assert.doesNotMatch(await ana.locator(".seats").innerText(), /invited/, "a cancelled game's seat still invited");
  assert.equal(await ana.locator(".trick-slots, .last-trick-box").count(), 0, "a game never started shows a trick's slots or a last trick");
  await screenshot(ana, "challenge-cancelled");
  await assertAccessible(ana, "a cancelled game's table");
  // It was never played: the lobby lists it neither among Ana's games nor among her results.
  const read = ana.waitForResponse((response) => response.url().endsWith(`/v1/games/${declined}`));
  await ana.goto(`${base(ana)}#/`);
  await read;
  await ana.locator("#open-title").waitFor();
  await ana.waitForTimeout(300); // the lists drawn from what was read
  assert.equal(await ana.locator(`.own-games [data-game="${declined}"]`).count(), 0, "a declined challenge listed as a result");

  // Bo refuses challenges: his profile tells Ana, with no form.
  await bo.goto(`${base(bo)}#/me`);
  await bo.locator("#challenge-take").uncheck();
  await bo.waitForFunction(async () => {
    const key = JSON.parse(localStorage.getItem("coins.player") ?? "null").key;
    return (await (await fetch("/v1/players/me", { headers: { Authorization: `Bearer ${key}` } })).json()).challenges === "nobody";
  }, null, { timeout: STEP_MS });
  await ana.goto(`${base(ana)}#/player/${boId}`);
  await ana.locator("#challenge-refused").waitFor();
  assert.equal(await ana.locator("#challenge-send").count(), 0);
  assertNoConsoleErrors(ana, bo);
});
