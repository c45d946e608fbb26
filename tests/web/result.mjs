// A rated game's result at the table: no Deal button nor "press Deal" in a game the server deals, the leave warning
// that a rated game ranks the leaver last, each seat's rating change beside its name once applied ("1500 → 1517 (+17)"),
// axe-core on the result, at 1280×720 and on a phone; and a void game (a seat left before its first card) says
// why nobody's rating changed. Signed in, "New game" seats you as your player, and "Your games" lists the game.

import assert from "node:assert/strict";

import { BASE_URL, STEP_MS, assertAccessible, assertNoConsoleErrors, openPage, playToTheEnd, scenario, screenshot } from "./browser.mjs";

/** A new player, signed in on this page (their key kept as the lobby keeps it). */
async function signIn(page, name) {
  await page.fill("#player-name", name);
  await page.click("#player-create button[type=submit]");
  await page.locator("#play-now").waitFor();
}

/** A rated game of this page's player (seat 0) against two bots, dealt by the server; opened at its table. */
async function ratedGame(page, target) {
  const id = await page.evaluate(async (score) => {
    const key = JSON.parse(localStorage.getItem("coins.player") ?? "null").key;
    const body = { seats: [{ player: "me" }, { bot: "basic" }, { bot: "random" }], rated: true, auto_deal: true, target_score: score, turn_timeout_seconds: 600 };
    const answer = await fetch("/v1/games", { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return (await answer.json()).id;
  }, target);
  await page.goto(`${BASE_URL}/#/game/${id}`);
  await page.locator(".table:not([data-status=waiting_for_players])").waitFor();
  return id;
}

/** Watch for a Deal button or a "press Deal" line, however briefly shown. */
const watchDeal = (page) =>
  page.evaluate(() => {
    window.dealSeen = [];
    new MutationObserver(() => {
      if (document.querySelector("button[data-key=deal]")) window.dealSeen.push("button");
      if (/press Deal/.test(document.querySelector(".status-line")?.textContent ?? "")) window.dealSeen.push("status");
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });

await scenario(async (browser) => {
  for (const [label, options] of [
    ["desktop", { viewport: { width: 1280, height: 720 } }],
    ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
  ]) {
    const page = await openPage(browser, options);
    await signIn(page, label === "desktop" ? "Ana" : "Bo");
    await ratedGame(page, 13);
    await watchDeal(page);
    // Every seat shows its rating as the game began, bots' too (the new player's is 1500, provisional).
    // A phone's seat line says it in few words, whole (the full line in its title).
    const shown = label === "phone" ? /^\d+( \(prov\.\))?$/ : /^Rating \d+( \(provisional\))?$/;
    await page.waitForFunction((source) => [...document.querySelectorAll(".seat-rating")].filter((line) => new RegExp(source).test(line.innerText) && line.scrollWidth <= line.clientWidth).length === 3, shown.source, { timeout: STEP_MS });
    assert.equal(await page.locator(".seat-rating").first().innerText(), label === "phone" ? "1500 (prov.)" : "Rating 1500 (provisional)");
    assert.equal(await page.locator(".seat-rating").first().getAttribute("title"), "Rating 1500 (provisional)");
    // Leaving a rated game says what it costs (and staying keeps the seat).
    await page.click("button[data-key=leave]");
    assert.match(await page.locator("#leave-question").innerText(), /ranked last/);
    await page.click("button[data-key=leave-no]");

    await playToTheEnd([page]);
    await page.locator("#winner").waitFor();
    assert.deepEqual(await page.evaluate(() => window.dealSeen), [], "no Deal button, no 'press Deal' where the server deals");
    // Each seat's change, beside its name, once applied (within a second or two).
    await page.waitForFunction(() => document.querySelectorAll(".seat-rating[data-rating-change]").length === 3, null, { timeout: STEP_MS });
    // The whole line at 1280×720; on a phone's narrow seat line the change in few words ("1517 (+17)"), whole in the result.
    const lines = await page.locator(".seat-rating").allInnerTexts();
    for (const line of lines) assert.match(line, label === "desktop" ? /^Rating \d+ → \d+ \([+−±]\d+\)$/ : /^\d+ \([+−±]\d+\)$/, line);
    const results = await page.locator("#rating-changes li").allInnerTexts();
    assert.equal(results.length, 3);
    for (const line of results) assert.match(line, / · Rating \d+ → \d+ \([+−±]\d+\)$/, line);
    assert.match(results[0], / · Rating 1500 → /);
    assert.equal(await page.locator("#ratings-pending").count(), 0);
    // The next table reads the ratings as they stand now: the profile's.
    const mine = results[0].match(/→ (\d+)/)?.[1];
    await page.goto(`${BASE_URL}/#/me`);
    await page.locator("#profile-rating").waitFor();
    assert.ok((await page.locator("#profile-rating").innerText()).startsWith(`${mine} `));
    await page.goBack();
    await page.locator("#winner").waitFor();
    await page.waitForFunction(() => document.querySelectorAll(".seat-rating[data-rating-change]").length === 3, null, { timeout: STEP_MS });
    await screenshot(page, `result-rated-${label}`, { fullPage: false });
    await assertAccessible(page, `the rated result (${label})`);
    assertNoConsoleErrors(page);
  }

  // A void game: its player leaves before playing a card; the bots play it out; the result says why it was not rated.
  const page = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  await signIn(page, "Cy");
  await ratedGame(page, 3);
  await page.click("button[data-key=leave]");
  await page.click("button[data-key=leave-yes]");
  await page.locator("#void-note").waitFor({ timeout: 120_000 });
  assert.match(await page.locator("#void-note").innerText(), /not rated/);
  assert.equal(await page.locator(".seat-rating[data-rating-change]").count(), 0);
  await screenshot(page, "result-void", { fullPage: false });
  await assertAccessible(page, "a void game's result");
  assertNoConsoleErrors(page);

  // Signed in, "New game" seats you as your player (no name asked; rated when you choose), and the lobby's
  // "Your games" lists the game with whose turn it is.
  const dee = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  await signIn(dee, "Dee");
  await dee.locator("#create-as-player").waitFor();
  assert.equal(await dee.locator("#create-name").count(), 0, "no name asked of a player");
  assert.equal(await dee.inputValue("#create-timeout"), "", "a new game's clock: none by default");
  await dee.check("#create-rated");
  // A rated game always has a clock: the form shows the 60 s it gets, and "No time limit" cannot be chosen.
  assert.equal(await dee.inputValue("#create-timeout"), "60");
  assert.equal(await dee.locator('#create-timeout option[value=""]').isDisabled(), true);
  await dee.uncheck("#create-rated");
  assert.equal(await dee.locator('#create-timeout option[value=""]').isDisabled(), false);
  await dee.check("#create-rated");
  await dee.selectOption("#create-seat-0", "you");
  await dee.selectOption("#create-seat-1", "bot:basic");
  await dee.selectOption("#create-seat-2", "bot:random");
  await dee.click("form[aria-labelledby=create-title] button[type=submit]");
  await dee.locator(".table .your-hand").waitFor();
  const created = decodeURIComponent(new URL(dee.url()).hash.split("/")[2]);
  const state = await dee.evaluate(async (id) => (await fetch(`/v1/games/${id}`)).json(), created);
  const deeId = await dee.evaluate(() => JSON.parse(localStorage.getItem("coins.player") ?? "null").id);
  assert.equal(state.rated, true);
  assert.equal(state.seats[0].player, deeId);
  await dee.goto(`${BASE_URL}/#/`);
  await dee.locator(`.own-games [data-game="${created}"]`).waitFor();
  assert.match(await dee.locator("#own-title").innerText(), /Your games/);
  await screenshot(dee, "lobby-your-games", { fullPage: false });
  assertNoConsoleErrors(dee);
});
