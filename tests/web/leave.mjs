// Leaving hands the seat to a bot: the page says so, turns into a spectator's, and the bots play the game out.
// Then seeded games, which the lobby, the table and the record panel mark (and no other game).

import assert from "node:assert/strict";

import { assertNoConsoleErrors, createGame, openPage, scenario } from "./browser.mjs";

await scenario(async (browser) => {
  const page = await openPage(browser);
  const gameId = await createGame(page, { name: "Ana", target: 3, seats: ["you", "bot:random", "bot:random"] });
  await page.click("button[data-key=leave]");
  await page.click("button[data-key=leave-yes]");
  await page.locator(".message.info", { hasText: "a bot plays your seat" }).waitFor();
  await page.locator("#winner").waitFor(); // three bots finish the game by themselves
  assert.equal(await page.locator("button[data-key=leave]").count(), 0);
  assert.equal(await page.evaluate((id) => localStorage.getItem(`coins.seat.${id}`), gameId), null);
  assert.equal(await page.locator("[data-seeded]").count(), 0, "an unseeded game is not marked seeded");

  const create = (body) =>
    page.evaluate(async (json) => {
      const response = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(json) });
      return (await response.json()).id;
    }, body);
  const openSeats = [{ bot: "random" }, null, null];
  const seededOpen = await create({ seats: openSeats, target_score: 3, seed: "browser-seeded-open" });
  const unseededOpen = await create({ seats: openSeats, target_score: 3 });
  const seededBots = await create({ seats: [{ bot: "random" }, { bot: "random" }, { bot: "random" }], target_score: 1, seed: "browser-seeded-bots" });

  await page.evaluate(() => (location.hash = "#/"));
  await page.locator(`.open-games li[data-game="${seededOpen}"]`).waitFor();
  await page.locator(`.open-games li[data-game="${unseededOpen}"]`).waitFor();
  const badge = page.locator(`li[data-game="${seededOpen}"] .badge.seeded`);
  assert.equal(await badge.textContent(), "Seeded");
  assert.match(await badge.getAttribute("title") ?? "", /anyone who knows the seed knows every hand/);
  assert.equal(await page.locator(`li[data-game="${unseededOpen}"] [data-seeded]`).count(), 0);

  await page.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), seededOpen);
  await page.locator(".table-main .message.seeded", { hasText: "anyone who knows the seed knows every hand" }).waitFor();

  await page.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), seededBots);
  await page.locator("#winner").waitFor(); // three bots to one point, played out by the server
  assert.equal(await page.locator(".table-main .message.seeded").count(), 1, "the finished table marks a seeded game");
  assert.equal(await page.locator(".game-record .message.seeded").count(), 1, "its record panel too");
  assertNoConsoleErrors(page);
});
