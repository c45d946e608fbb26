// On a 390×844 phone screen the table fits the width and a trick is played by tapping; a hint covers neither the
// status line nor the seats, nor the hand's buttons and cards, its × dismisses it, and a hint asked again goes when
// the turn passes; on a 320 px phone it covers neither the hand's buttons nor its cards either. The bots' names are
// whole on a phone in every language ("Robot au hasard A" on two lines).

import assert from "node:assert/strict";

import { assertNoConsoleErrors, coveredByHint, createGame, dealIfAsked, openPage, scenario, screenshot, tableState, waitForChange } from "./browser.mjs";

await scenario(async (browser) => {
  const page = await openPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await createGame(page, { name: "Bartholomew the Magnificent", target: 5, seats: ["you", "bot:random", "bot:random"] });
  await dealIfAsked(page, { tap: true });
  const card = page.locator(".your-turn .card-button").first();
  await card.waitFor();

  // A long name is cut, never "(you)", the turn's badge or the counts.
  const cut = await page.evaluate(() => {
    const cutOff = (element) => element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1;
    const inside = (element) => {
      const card = element.closest(".seat-card").getBoundingClientRect();
      const box = element.getBoundingClientRect();
      return box.left >= card.left && box.right <= card.right && box.bottom <= card.bottom;
    };
    const you = document.querySelector('.seat-card[data-seat="0"] .seat-you');
    const turn = [...document.querySelectorAll(".seat-card.to-act .role")].find((role) => role.textContent.startsWith("▶"));
    return [
      !you || !inside(you) ? "(you)" : null,
      !turn || !inside(turn) ? "the turn's badge" : null,
      ...[...document.querySelectorAll(".seat-count, .seat-roles")].filter(cutOff).map((element) => `${element.className}: ${element.textContent}`),
    ].filter(Boolean);
  });
  assert.deepEqual(cut, [], "cut off on a phone's seat line");
  assert.equal(await page.locator('.seat-card[data-seat="0"] .seat-name').getAttribute("title"), "Bartholomew the Magnificent (you)");
  await screenshot(page, "mobile-long-name", { fullPage: false });

  // The bots' names, the longest of them ("Robot au hasard A", "Бот випадковий A"), are whole in every language.
  for (const language of ["en", "es", "nl", "zh-Hant", "fr", "uk"]) {
    await page.selectOption("#language", language);
    await page.locator(`html[lang="${language}"]`).waitFor();
    const names = await page.locator(".seat-card:not(:has(.seat-you)) .seat-given").evaluateAll((names) =>
      names.filter((name) => name.scrollWidth > name.clientWidth + 1 || name.scrollHeight > name.clientHeight + 1).map((name) => name.textContent),
    );
    assert.deepEqual(names, [], `bots' names cut on a phone in ${language}`);
    if (language === "fr") await screenshot(page, "mobile-names-fr", { fullPage: false });
  }
  await page.selectOption("#language", "en");

  await page.locator("button[data-key=hint]").tap();
  await page.locator("#hint").waitFor();
  const box = async (selector) => page.locator(selector).first().boundingBox();
  const hint = await box("#hint");
  for (const covered of [".status-line", ".seat-card"]) {
    const other = await box(covered);
    const overlaps = hint.y < other.y + other.height && other.y < hint.y + hint.height;
    assert.ok(!overlaps, `the hint (y ${hint.y}–${hint.y + hint.height}) covers ${covered} (y ${other.y}–${other.y + other.height})`);
  }
  assert.deepEqual(await coveredByHint(page), [], "the hint covers these on a 390 px phone");
  await screenshot(page, "mobile-hint", { fullPage: false });
  await page.locator("#hint [data-key=dismiss-hint]").tap();
  await page.locator("#hint").waitFor({ state: "detached" });
  await page.locator("button[data-key=hint]").tap();
  await page.locator("#hint").waitFor();

  const played = await card.getAttribute("data-card");
  const { version } = await tableState(page);
  await card.tap();
  await waitForChange(page, version);
  await page.locator("#hint").waitFor({ state: "detached" }); // the turn passed: the hint went with it
  // The card left the hand for the table: on it, or (its trick complete and cleared while the
  // machine was busy) gone from the hand.
  await page.waitForFunction(
    (card) => document.querySelector(`.played[data-card="${card}"]`) !== null || document.querySelector(`.card-button[data-card="${card}"]`) === null,
    played,
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - screen.width); // a phone's page (and innerWidth) grows to fit what is wider
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  await screenshot(page, "mobile");
  assertNoConsoleErrors(page);

  // A 320 px phone: the hint covers neither the hand's buttons nor any card.
  const narrow = await openPage(browser, { viewport: { width: 320, height: 568 }, hasTouch: true, isMobile: true });
  await createGame(narrow, { name: "Hana", target: 5, seats: ["you", "bot:basic", "bot:basic"] });
  await dealIfAsked(narrow, { tap: true });
  await narrow.locator(".your-turn .card-button").first().waitFor();
  await narrow.locator("button[data-key=hint]").tap();
  await narrow.locator("#hint").waitFor();
  assert.deepEqual(await coveredByHint(narrow), [], "the hint covers these on a 320 px phone");
  await screenshot(narrow, "mobile-hint-320");
  assertNoConsoleErrors(narrow);
});
