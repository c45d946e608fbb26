// Players in three browsers: each creates a player, presses "Play now" (a wait goes on while the player reads another
// page, and another browser of the player shows it rather than an error), is matched into one game and plays it out;
// a profile shows the game and the rating; a key copied to a fourth browser signs in there as the same player and
// acts for the seat; replacing the key signs that browser out; the leaderboard lists no provisional rating.

import assert from "node:assert/strict";

import { STEP_MS, assertAccessible, assertNoConsoleErrors, openPage, playToTheEnd, scenario, screenshot } from "./browser.mjs";

/** Create a player by name in the lobby's player panel; returns the player's id. */
async function createPlayer(page, name) {
  await page.fill("#player-name", name);
  await page.click("#player-create button[type=submit]");
  await page.locator("#play-now").waitFor();
  assert.match(await page.locator("#me-title").innerText(), new RegExp(name));
  return page.evaluate(() => JSON.parse(localStorage.getItem("coins.player") ?? "null").id);
}

/** Choose the quick-play options and press "Play now". */
async function playNow(page, { target = 1, bots = "never" } = {}) {
  await page.fill("#quick-target", String(target));
  await page.selectOption("#quick-bots", bots);
  assert.equal(await page.inputValue("#quick-clock"), "60", "a minute a turn by default");
  assert.equal(await page.isChecked("#quick-rated"), true, "quick play is rated by default");
  await page.click("#play-now");
}

const keyOf = (page) => page.evaluate(() => JSON.parse(localStorage.getItem("coins.player") ?? "null")?.key ?? null);
/** The player's rated games, as their profile comes to say (read again for up to a few seconds: the ratings
 *  are applied just after the game's end). */
async function ratedGames(page) {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const games = await page.evaluate(async () => {
      const key = JSON.parse(localStorage.getItem("coins.player") ?? "null").key;
      return (await (await fetch("/v1/players/me", { headers: { Authorization: `Bearer ${key}` } })).json()).rating.games;
    });
    if (games > 0) return games;
    await page.waitForTimeout(250);
  }
  return 0;
}
const gameIdOf = (page) => decodeURIComponent(new URL(page.url()).hash.split("/")[2]);

await scenario(async (browser) => {
  const ana = await openPage(browser);
  await screenshot(ana, "players-lobby");
  await assertAccessible(ana, "the lobby's player panel");
  const names = ["Ana", "Bo", "Cy"];
  const people = [ana, await openPage(browser), await openPage(browser)];
  const ids = [];
  for (const [index, page] of people.entries()) ids.push(await createPlayer(page, names[index]));
  assert.equal(new Set(ids).size, 3);

  // Ana waits (bots after a minute), sees the time she has waited and the countdown to the bots, which are
  // never the random one at a rated table; she cancels, and queues again.
  await playNow(ana, { bots: "60" });
  await ana.locator("[data-ticket=waiting]").waitFor();
  await ana.waitForFunction(() => /0:0[1-9]/.test(document.querySelector("#quick-waited")?.textContent ?? ""), null, { timeout: STEP_MS });
  assert.match(await ana.locator("#quick-bots-in").innerText(), /^Bots join in 0:5\d$/);
  assert.match(await ana.locator("#quick-bots-which").innerText(), /never the random one/);
  await screenshot(ana, "players-waiting");
  await assertAccessible(ana, "quick play, waiting");
  const cancelled = await ana.evaluate(() => localStorage.getItem("coins.ticket"));
  await ana.click("#quick-cancel");
  await ana.locator("#play-now").waitFor();
  const ticket = await ana.evaluate(async (id) => {
    const key = JSON.parse(localStorage.getItem("coins.player") ?? "null").key;
    return (await fetch(`/v1/queue/${id}`, { headers: { Authorization: `Bearer ${key}` } })).json();
  }, cancelled);
  assert.equal(ticket.status, "cancelled");

  // Waiting goes on while Ana reads another page of the app (a ticket neither read nor followed for 30 s expires):
  // back in the lobby, the same wait is shown, and she cancels it.
  await playNow(ana);
  await ana.locator("[data-ticket=waiting]").waitFor();
  const kept = await ana.evaluate(() => localStorage.getItem("coins.ticket"));
  await ana.evaluate(() => (location.hash = "#/rules"));
  await ana.waitForTimeout(40_000);
  await ana.evaluate(() => (location.hash = "#/"));
  await ana.locator("[data-ticket=waiting]").waitFor();
  assert.equal(await ana.evaluate(() => localStorage.getItem("coins.ticket")), kept, "the same ticket");

  // Ana in another browser (her key copied) presses "Play now" meanwhile: one wait at a time, so that page shows the
  // wait under way (the service's 409 already_queued names it), not an error; its Cancel ends it on both.
  const anaElsewhere = await openPage(browser);
  await anaElsewhere.click("details.sign-in summary");
  await anaElsewhere.fill("#player-key", await keyOf(ana));
  await anaElsewhere.click("#player-sign-in button[type=submit]");
  await anaElsewhere.locator("#play-now").waitFor();
  await playNow(anaElsewhere);
  await anaElsewhere.locator("#quick-note", { hasText: "already waiting for a game" }).waitFor();
  assert.equal(await anaElsewhere.evaluate(() => localStorage.getItem("coins.ticket")), kept, "the wait under way, not a new one");
  assert.equal(await anaElsewhere.locator(".quick-play .message.error").count(), 0, "no error for a wait begun elsewhere");
  await anaElsewhere.click("#quick-cancel");
  await anaElsewhere.locator("#play-now").waitFor();
  await ana.locator("#play-now").waitFor({ timeout: STEP_MS }); // the ticket read again: cancelled
  anaElsewhere.errors = anaElsewhere.errors.filter((line) => !/status of 409 .*\/queue\)$/.test(line));
  assertNoConsoleErrors(anaElsewhere);
  await anaElsewhere.context().close();

  // All three press "Play now": the player feed tells each page its game, which opens.
  for (const page of people) await playNow(page);
  for (const page of people) await page.locator(".table").waitFor({ timeout: STEP_MS });
  const gameIds = await Promise.all(people.map(gameIdOf));
  assert.equal(new Set(gameIds).size, 1, gameIds.join(" "));
  const gameId = gameIds[0];
  // A player's seat is named with their rating, and the page holds no seat token: the key acts for it.
  for (const page of people) {
    await page.locator(".table:not([data-status=waiting_for_players])").waitFor();
    await page.waitForFunction(() => document.querySelectorAll(".seat-rating").length === 3 && [...document.querySelectorAll(".seat-rating")].every((line) => line.textContent.includes("1500 (provisional)")), null, { timeout: STEP_MS });
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("coins.seat."))), []);
  }
  await screenshot(ana, "players-table");

  // The key copied to another browser signs in there as Ana: her profile, and her seat at the table.
  await ana.goto(`${ana.url().split("#")[0]}#/me`);
  await ana.locator("#profile-rating").waitFor();
  await ana.click("#key-show");
  const copied = await ana.locator("#key-value").inputValue();
  assert.equal(copied, await keyOf(ana));
  const dee = await openPage(browser);
  await dee.click("details.sign-in summary");
  await dee.fill("#player-key", copied);
  await dee.click("#player-sign-in button[type=submit]");
  await dee.locator("#me-title").waitFor();
  assert.match(await dee.locator("#me-title").innerText(), /Ana/);
  // Her games are listed at once, not at the lobby's next refresh (10 s).
  await dee.locator(`#own-playing [data-game="${gameId}"]`).waitFor({ timeout: 5000 });
  await dee.goto(`${dee.url().split("#")[0]}#/me`);
  await dee.locator(`[data-game="${gameId}"] a`).click();
  await dee.locator(".table .your-hand").waitFor(); // Ana's cards, read with the key
  await dee.goto(`${dee.url().split("#")[0]}#/`);
  await ana.goto(`${ana.url().split("#")[0]}#/game/${gameId}`);
  await ana.locator(".table .your-hand").waitFor();

  await playToTheEnd(people);
  for (const page of people) await page.locator("#winner").waitFor();
  await screenshot(ana, "players-finished");

  // Each profile shows the finished game and its rated result (the ratings are applied within a second).
  for (const page of people) {
    await page.goto(`${page.url().split("#")[0]}#/me`);
    await page.locator(`[data-game="${gameId}"]`).waitFor();
    assert.equal(await ratedGames(page), 1, "the rated game is on the profile within a few seconds");
    await page.reload();
    await page.locator("#profile-rated-games").waitFor();
    assert.equal(await page.locator("#profile-rated-games").innerText(), "1");
    assert.equal(await page.locator("#profile-rating").getAttribute("data-provisional"), "true");
    assert.match(await page.locator("#profile-record").innerText(), /1 game finished/);
    // The game's line says the place and the rating's change, as the rating now reads.
    const line = await page.locator(`[data-game="${gameId}"]`).innerText();
    const [, before, after] = /place [123]: (\d+) → (\d+) \([+−±]\d+\)/.exec(line) ?? [];
    assert.equal(before, "1500", line);
    assert.equal(`${after} (provisional)`, await page.locator("#profile-rating").innerText());
  }
  const ratings = await Promise.all(people.map((page) => page.locator("#profile-rating").innerText()));
  assert.ok(ratings.some((text) => !text.startsWith("1500 ")), `no rating moved: ${ratings.join(", ")}`);
  await screenshot(ana, "players-profile");
  await assertAccessible(ana, "a profile with its key");

  // Three provisional ratings: the leaderboard lists none of them.
  await ana.goto(`${ana.url().split("#")[0]}#/leaderboard`);
  await ana.locator("#leaderboard-title").waitFor();
  await ana.waitForFunction(() => document.querySelector("#leaderboard-empty, .ranking:not(.rising)"), null, { timeout: STEP_MS });
  assert.equal(await ana.locator(".leaderboard [data-problem]").count(), 0, "the leaderboard could not be read");
  for (const id of ids) assert.equal(await ana.locator(`.ranking:not(.rising) [data-player="${id}"]`).count(), 0);
  await assertAccessible(ana, "the leaderboard");

  // Replacing the key: this browser keeps working with the new one; the other browser's copy is refused.
  await ana.goto(`${ana.url().split("#")[0]}#/me`);
  await ana.click("#key-replace");
  await ana.click("#key-confirm");
  await ana.waitForFunction((old) => JSON.parse(localStorage.getItem("coins.player") ?? "null").key !== old, copied);
  await ana.locator("#profile-rating").waitFor();
  await dee.reload();
  await dee.locator('[data-problem="invalid_key"]').waitFor();
  // Chromium reports the refused key's expected 401s in the console (the player panel's read, and the lobby's
  // challenges' reads until the panel has signed out, one of which may still be answered after that): the
  // errors allowed, on that page alone. One alert only.
  assert.equal(await dee.locator('[data-problem="invalid_key"]').count(), 1);
  const refusedKey = (line) => /status of 401 .*\/v1\/players\/me(\/games\?[^ ]*)?\)$/.test(line);
  assert.ok(dee.errors.some((line) => refusedKey(line) && /\/v1\/players\/me\)$/.test(line)), dee.errors.join("\n"));
  await dee.locator("#player-name").waitFor(); // the way to sign in again

  // No key ever went into a URL.
  const keys = [copied, ...(await Promise.all(people.map(keyOf)))];
  const leaks = [...people, dee].flatMap((page) => page.urls).filter((url) => keys.some((key) => url.includes(key)));
  assert.deepEqual(leaks, []);
  dee.errors = dee.errors.filter((line) => !refusedKey(line)); // those answered after the sign-out too
  assertNoConsoleErrors(...people, dee);
});
