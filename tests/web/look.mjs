// How the client looks and reads, as a person sees it: the lobby, a table in play at 1280×720 with a
// completed trick held and its reason, the rules (the whole sheet, in all six languages), a finished table
// with its hand summaries, and a 390×844 phone. The table and the whole hand fit without scrolling;
// axe-core finds no serious or critical violation.

import assert from "node:assert/strict";

import {
  assertAccessible, assertNoConsoleErrors, assertOnScreen, createGame, dealIfAsked, openPage, playToTheEnd, scenario, screenshot, seenOnPage, waitForMyTurn,
} from "./browser.mjs";

/** Start a game against two bots and wait for this seat's first turn. */
async function startAgainstBots(page, target) {
  const gameId = await createGame(page, { name: "Ana", target, seats: ["you", "bot:expert", "bot:expert"] });
  await dealIfAsked(page);
  await waitForMyTurn(page);
  return gameId;
}

await scenario(async (browser) => {
  const desk = await openPage(browser, { viewport: { width: 1280, height: 720 }, trickPauseMs: 2500 });
  await assertAccessible(desk, "the lobby");
  await screenshot(desk, "lobby", { fullPage: false });

  await startAgainstBots(desk, 13);
  await assertOnScreen(desk, ".felt, .your-hand .card-button", "the table and the whole hand");
  await assertAccessible(desk, "a table in play");
  // A completed trick stays on the table with all three cards and the reason it was won.
  await desk.locator(".your-turn .card-button").first().click();
  await desk.locator("#trick-reason").waitFor();
  await desk.mouse.move(0, 0); // no card under the pointer (its hover look) in the screenshot
  assert.equal(await desk.locator(".current-trick .slot.played").count(), 3);
  assert.match(await desk.locator("#trick-reason").textContent(), /takes the trick \(\d points?\): (three suits|pair of|all )/);
  await screenshot(desk, "table", { fullPage: false });

  await desk.click("#rules-link");
  await desk.locator("#rules-title").waitFor();
  await assertAccessible(desk, "the rules");
  await screenshot(desk, "rules");
  for (const code of ["es", "nl", "zh-Hant", "fr", "uk", "en"]) {
    await desk.selectOption("#language", code); // the whole sheet in every language, no key without its text
    assert.equal(await desk.locator(".rules section h3").count(), 7, code);
    assert.doesNotMatch(await desk.locator(".rules").textContent(), /rules\.\w+/, code);
    if (code === "zh-Hant" || code === "uk") await screenshot(desk, `rules-${code}`);
  }
  await desk.goBack();
  await desk.locator(".table").waitFor();

  await desk.evaluate(() => localStorage.setItem("coins.trickPauseMs", "60")); // play the rest quickly
  await playToTheEnd([desk]);
  await desk.locator("#winner").waitFor();
  assert.ok((await seenOnPage(desk)).includes("hand-summary"), "no hand summary was shown");
  const history = await desk.locator(".scoreboard tbody tr").count();
  assert.ok(history >= 2, `the score history has ${history} hands`);
  const log = desk.locator(".log");
  assert.equal(await log.getAttribute("tabindex"), "0", "the log is not reachable by keyboard");
  assert.match(await log.locator("li").first().textContent(), /deals first, (drawn at random|as the oldest player|named by the game’s creator)\./);
  assert.match(await log.locator("li").nth(1).textContent(), /dealt hand 1/);
  await assertAccessible(desk, "a finished table");
  await screenshot(desk, "finished");

  // A rematch from the finished table; then the lobby remembers the name and shows the result.
  const finishedUrl = desk.url();
  await desk.click("button[data-key=rematch]");
  await desk.waitForURL((url) => url.toString() !== finishedUrl);
  await desk.locator(".table").waitFor();
  await dealIfAsked(desk); // when this seat deals the rematch's first hand
  const rematchId = decodeURIComponent(new URL(desk.url()).hash.split("/")[2]);
  // Someone else's game in play (made by the API: this browser holds none of its seats), to watch.
  const othersId = await desk.evaluate(async () => {
    const body = { target_score: 15, auto_deal: true, seats: [{ name: "Cy" }, { bot: "basic" }, { bot: "expert" }] }; // dealt: in play
    const answer = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return (await answer.json()).id;
  });
  await desk.goto(`${new URL(desk.url()).origin}/#/`);
  await desk.locator(".own-games [data-result]").first().waitFor();
  assert.equal(await desk.inputValue("#create-name"), "Ana", "the lobby forgot the name");
  assert.ok((await desk.locator(".own-games li").count()) >= 2, "the rematch is not among your games");
  await desk.locator(`[data-game="${othersId}"] [data-key=watch]`).waitFor(); // in play: it can be watched
  assert.equal(await desk.locator(`[data-game="${rematchId}"] [data-key=watch]`).count(), 0, "your own rematch offered to watch");
  await assertAccessible(desk, "the lobby with games");
  await screenshot(desk, "lobby-games");
  assertNoConsoleErrors(desk);

  const phone = await openPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await phone.selectOption("#create-timeout", { label: "5 min" }); // a turn clock, counted down beside the status line
  await startAgainstBots(phone, 15);
  assert.match(await phone.locator(".turn-clock").textContent(), /^[45] min left$/);
  assert.match(await phone.title(), /Your turn/);
  await assertOnScreen(phone, ".felt, .your-hand .card-button", "the table and the whole hand");
  await assertAccessible(phone, "the phone layout");
  await screenshot(phone, "phone", { fullPage: false });
  assertNoConsoleErrors(phone);
});
