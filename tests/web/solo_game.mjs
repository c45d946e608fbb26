// A person plays a whole game against two bots, asking for a hint once; the lobby, the table and the end are photographed.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, assertNoTokenInUrls, createGame, fairDealMarks, openPage, playToTheEnd, scenario, screenshot, tableState } from "./browser.mjs";

await scenario(async (browser) => {
  const page = await openPage(browser);
  await screenshot(page, "lobby");
  await createGame(page, { name: "Ana", target: 5, seats: ["you", "bot:basic", "bot:expert"] });
  const deal = page.locator("button[data-key=deal]");
  if (await deal.isVisible()) await deal.click();
  await page.locator(".your-turn .card-button").first().waitFor();
  await page.click("button[data-key=hint]");
  await page.locator(".card-button.hinted").waitFor(); // the expert's advice, marked among your cards
  let photographed = false;
  await playToTheEnd([page], {
    keyboard: true,
    onStep: async () => {
      if (!photographed && (await page.locator(".current-trick .played").count()) >= 1 && (await page.locator(".your-turn .card-button").count()) >= 8) {
        await screenshot(page, "table");
        photographed = true;
      }
    },
  });
  assert.equal((await tableState(page)).status, "finished");
  await page.locator("#winner").waitFor();
  const marks = await fairDealMarks(page);
  assert.ok(marks.verified >= 1, "no hand was verified");
  assert.equal(marks.failed, 0, "a fair-deal check failed");
  await screenshot(page, "finished");
  await assertNoTokenInUrls(page);
  assertNoConsoleErrors(page);
});
