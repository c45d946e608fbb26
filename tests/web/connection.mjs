// Connection honesty: with the network cut (the browser offline, which closes the event stream) the table says
// "reconnecting", not "live"; a card played meanwhile is offered again with the same Idempotency-Key; once the
// network is back the stream is live again, the error is gone by itself, and the card, played again, is played once.
// The notices (reconnecting, the card offered again) never hide the status line's turn clock.

import assert from "node:assert/strict";

import { STEP_MS, assertNoConsoleErrors, createGame, openPage, playsOf, scenario, screenshot, waitForMyTurn } from "./browser.mjs";

/** The notices over the table that lie over its turn clock (their ids), once the clock shows a count. */
async function clockHiddenBy(page) {
  await page.locator(".turn-clock[data-seconds]").waitFor();
  return page.evaluate(() => {
    const clock = document.querySelector(".turn-clock").getBoundingClientRect();
    const over = (box) => box.top < clock.bottom && clock.top < box.bottom && box.left < clock.right && clock.left < box.right;
    return [...document.querySelectorAll(".notices > *")].filter((notice) => over(notice.getBoundingClientRect())).map((notice) => notice.id || notice.className);
  });
}

await scenario(async (browser) => {
  const page = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  /** @type {string[]} the Idempotency-Key of every play request the page made */
  const keys = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith("/plays")) keys.push(request.headers()["idempotency-key"]);
  });
  await page.selectOption("#create-timeout", "300"); // a turn clock to keep in sight: 5 minutes, longer than the scenario
  const gameId = await createGame(page, { name: "Ana", target: 15, seats: ["you", "bot:basic", "bot:random"] });
  const deal = page.locator("button[data-key=deal]");
  await page.waitForFunction(() => document.querySelector("button[data-key=deal], .your-turn .card-button"), null, { timeout: STEP_MS });
  if (await deal.isVisible()) await deal.click();
  await waitForMyTurn(page);
  await page.locator(".live[data-live=live]").waitFor();

  // The network goes: the stream is closed, and the table says so at once.
  await page.context().setOffline(true);
  await page.locator("#reconnecting").waitFor();
  assert.equal(await page.locator(".live").getAttribute("data-live"), "reconnecting");
  // Said to a screen reader too: the notice, shown with its text, may not be read out by itself.
  assert.equal(await page.locator(".visually-hidden[role=status]").innerText(), "Connection lost: reconnecting… Your moves wait until it is back.");
  const card = await page.locator(".your-turn .card-button").first().getAttribute("data-card");
  await page.locator(`.card-button[data-card="${card}"]`).click();
  await page.locator("#play-failed").waitFor({ timeout: STEP_MS }); // every try failed: offered again
  assert.deepEqual(await clockHiddenBy(page), [], "a notice lies over the turn clock");
  await screenshot(page, "connection-lost", { fullPage: false });
  assert.ok(keys.length >= 1, "the play was tried");
  assert.equal(new Set(keys).size, 1, `one intent, one key: ${keys.join(", ")}`);
  assert.deepEqual(await playsOf(page, gameId, 0).catch(() => []), []);

  // The network is back: live again, and no error left on the screen.
  await page.context().setOffline(false);
  await page.locator(".live[data-live=live]").waitFor({ timeout: STEP_MS });
  await page.locator("#reconnecting").waitFor({ state: "detached" });
  assert.equal(await page.locator("[data-problem=network_error]").count(), 0);

  // Played again, with the same key: played once.
  await page.locator("button[data-key=play-again]:not([disabled])").click();
  await page.locator("#play-failed").waitFor({ state: "detached", timeout: STEP_MS });
  await page.waitForFunction((played) => !document.querySelector(`.your-hand .card-button[data-card="${played}"]`), card, { timeout: STEP_MS });
  const plays = await playsOf(page, gameId, 0);
  assert.deepEqual(plays.filter((played) => played === card), [card]);
  assert.equal(new Set(keys).size, 1, `the play again carried the first key: ${keys.join(", ")}`);
  await screenshot(page, "connection-back", { fullPage: false });

  // The requests the browser could not send are the only console errors.
  page.errors = page.errors.filter((line) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(line));
  assertNoConsoleErrors(page);
});
