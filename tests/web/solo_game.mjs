// A person plays a whole game against two bots, asking for a hint once, then checks and downloads the game record and
// asks for the game's review (shown once the worker has computed it); the lobby, the table, the end and the review are photographed.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";

import { STEP_MS, assertAccessible, assertNoConsoleErrors, assertNoTokenInUrls, createGame, dealIfAsked, fairDealMarks, openPage, playToTheEnd, scenario, screenshot, tableState } from "./browser.mjs";

await scenario(async (browser) => {
  const page = await openPage(browser);
  await screenshot(page, "lobby");
  const gameId = await createGame(page, { name: "Ana", target: 5, seats: ["you", "bot:basic", "bot:expert"] });
  await dealIfAsked(page);
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
  await page.click("button[data-key=record-check]"); // the whole record, checked in the browser
  await page.locator("#record-check[data-verified]").waitFor();
  assert.equal(await page.locator("#record-check").getAttribute("data-verified"), "true", await page.locator("#record-check").textContent());
  assert.match(await page.locator("#record-check").textContent(), /Record verified/);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("button[data-key=record-download]")]);
  assert.equal(download.suggestedFilename(), `coins-${gameId}.json`);
  const saved = JSON.parse(await readFile(await download.path(), "utf8"));
  assert.equal(saved.format, "coins-record");
  assert.equal(saved.status, "finished");
  await screenshot(page, "finished");
  // The review: asked for at the end, prepared by the worker (202 meanwhile), then each seat's largest mistakes.
  const table = await page.locator(".table-main").boundingBox();
  await page.click("button[data-key=review]");
  // The first ask is always answered 202: the panel says so until an ask after Retry-After gets the review.
  assert.match(await page.locator("#review-waiting").innerText(), /^The review is being prepared…/);
  await page.locator("#review-ready").waitFor({ timeout: 4 * STEP_MS });
  assert.equal(await page.locator("#review .review-seat").count(), 3);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-key")), "review", "the focus stays in the review");
  const lines = await page.locator("#review .review-mistakes li").allInnerTexts();
  assert.ok(lines.length <= 9);
  for (const line of lines) assert.match(line, /^Hand \d+, trick \d+: .+ played the .+; the master would have played the .+: \d+\.\d points fewer expected$/);
  assert.deepEqual(await page.locator(".table-main").boundingBox(), table, "the review moves nothing on the table");
  // Scrolled in the page at once: the table renders anew (its rating poll) and may replace the panel mid-way.
  await page.evaluate(() => document.getElementById("review")?.scrollIntoView({ block: "nearest" }));
  await screenshot(page, "review");
  await assertAccessible(page, "the review");
  await assertNoTokenInUrls(page);
  assertNoConsoleErrors(page);
});
