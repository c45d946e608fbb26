// Leaving hands the seat to a bot: the page says so, turns into a spectator's, and the bots play the game out.

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
  assertNoConsoleErrors(page);
});
