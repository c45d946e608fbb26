// A game's last trick is held on the table, with its reason, before the result is laid over it, and none of its
// cards then flies across the winner's banner (the taken trick's moving copies are for a table left in view); the
// log says the live updates have ended only once the table has shown the game's end, not when the stream closed.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, openPage, scenario, screenshot } from "./browser.mjs";

/** What the page shows at the game's end, watched on every change: a completed trick before the result, a card's copy over it. */
function watchTheEnd() {
  window.end = { heldBeforeResult: false, ghostOverResult: false, endedBeforeTheEnd: false };
  new MutationObserver(() => {
    const result = document.getElementById("result");
    const table = document.querySelector(".table");
    if (!result && table?.dataset.status === "finished" && document.querySelector(".trick-slots.complete") && document.getElementById("trick-reason")) window.end.heldBeforeResult = true;
    if (result && document.querySelector(".card-ghost")) window.end.ghostOverResult = true;
    if (table && table.dataset.status !== "finished" && document.querySelector('.live[data-live="ended"]')) window.end.endedBeforeTheEnd = true;
  }).observe(document, { childList: true, subtree: true });
}

await scenario(async (browser) => {
  const page = await openPage(browser, { trickPauseMs: 900 });
  await page.addInitScript(watchTheEnd);
  // Three bots to one point: the server plays it out; the table shows its last events at a person's pace.
  const gameId = await page.evaluate(async () => {
    const body = { seats: [{ bot: "random" }, { bot: "random" }, { bot: "random" }], target_score: 1 };
    const response = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return (await response.json()).id;
  });
  await page.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), gameId);
  await page.reload(); // the watcher, from the start of the table
  await page.locator("#result #winner").waitFor();
  await page.waitForTimeout(1000); // longer than a taken trick's flight
  const end = await page.evaluate(() => window.end);
  assert.ok(end.heldBeforeResult, "the last trick was never held on the table before the result");
  assert.ok(!end.ghostOverResult, "a card of the last trick flew across the result");
  assert.ok(!end.endedBeforeTheEnd, "'Live updates have ended' showed while the table was still playing the game out");
  assert.equal(await page.locator(".live").getAttribute("data-live"), "ended");
  assert.equal(await page.locator(".card-ghost").count(), 0);
  await screenshot(page, "last-trick-result");
  assertNoConsoleErrors(page);
});
