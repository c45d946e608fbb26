// A reload in the middle of a game resumes it: the same seat, the same cards, and play goes on.

import assert from "node:assert/strict";

import { actIfMyTurn, assertNoConsoleErrors, createGame, openPage, scenario, tableState, waitForChange } from "./browser.mjs";

const handCards = (page) => page.locator(".card-button").evaluateAll((buttons) => buttons.map((button) => button.dataset.card));

await scenario(async (browser) => {
  const page = await openPage(browser);
  const gameId = await createGame(page, { name: "Ana", target: 20, seats: ["you", "bot:random", "bot:basic"] });
  for (let moves = 0; moves < 3; ) {
    const { version } = await tableState(page);
    if (await actIfMyTurn(page)) moves += 1;
    await waitForChange(page, version);
  }
  await page.locator(".your-turn .card-button").first().waitFor();
  const before = await handCards(page);
  const { version } = await tableState(page);

  await page.reload();
  await page.locator(".your-turn .card-button").first().waitFor();
  assert.ok(page.url().includes(gameId));
  assert.deepEqual(await handCards(page), before);
  assert.equal((await tableState(page)).version, version);

  await actIfMyTurn(page);
  await waitForChange(page, version);
  assert.equal((await handCards(page)).length, before.length - 1);
  assertNoConsoleErrors(page);
});
