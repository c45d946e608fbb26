// On a 390×844 phone screen the table fits the width and a trick is played by tapping; a hint covers neither the
// status line nor the seats, nor the hand's buttons and cards, its × dismisses it, and a hint asked again goes when
// the turn passes; on a 320 px phone it covers neither the hand's buttons nor its cards either. The bots' names are
// whole on a phone in every language ("Robot au hasard A" on two lines). From 320 px to 1280, in every language, the
// hand's buttons are whole, and so are the seats' lines (names, rating, counts: "0 points · 16 cards · 0 tricks", roles) and
// the status line with a correspondence game's deadline ("Turn ends Dec 10, 2026, 11:48 PM"), and the line saying
// why a trick was won, whatever the reason.

import assert from "node:assert/strict";

import { BASE_URL, assertNoConsoleErrors, coveredByHint, createGame, cutOnTable, dealIfAsked, openPage, scenario, screenshot, tableState, waitForChange } from "./browser.mjs";

const LANGUAGES = ["en", "es", "nl", "zh-Hant", "fr", "uk"];
/** From a small phone to a desktop, through a tablet in portrait and a half-screen window (two columns from 800 px). */
const WIDTHS = [320, 360, 390, 768, 800, 900, 999, 1024, 1280];

/**
 * The lines a held trick's reason could say, in the page's language, that the trick's line cuts off: each reason there
 * is (every three suits a trick can hold), said of seat 1 winning 12 points, put in turn in the line (which is there,
 * empty, while no trick is held). @param {import("playwright-core").Page} page
 */
function reasonsCut(page) {
  return page.evaluate(async () => {
    const [{ t }, { trickReason }] = await Promise.all([import("/web/js/i18n.js"), import("/web/js/trick.js")]);
    const line = document.querySelector(".trick-area > .trick-line");
    if (!line) return ["no trick line"];
    const shown = line.textContent;
    const name = document.querySelector('.seat-card[data-seat="1"] .seat-given')?.textContent ?? "";
    const suits = ["cups", "coins", "swords", "clubs"];
    const reasons = new Set(suits.flatMap((a) => suits.flatMap((b) => suits.map((c) => trickReason([`1-${a}`, `2-${b}`, `3-${c}`])))));
    const cut = [];
    for (const reason of reasons) {
      line.textContent = t("table.trickWonBy", { name, points: t("count.points", { count: 12 }), reason });
      if (line.scrollHeight > line.clientHeight + 1) cut.push(`trick-line: ${line.textContent}`);
    }
    line.textContent = shown;
    return cut;
  });
}

/** Fail if the table cuts anything off (cutOnTable, a trick's reasons) at any of WIDTHS in any language. @param {import("playwright-core").Page} page */
async function assertNothingCut(page, when) {
  const found = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const language of LANGUAGES) {
      await page.selectOption("#language", language);
      await page.locator(`html[lang="${language}"]`).waitFor();
      found.push(...(await cutOnTable(page)).map((what) => `${width} px, ${language}: ${what}`));
      found.push(...(await reasonsCut(page)).map((what) => `${width} px, ${language}: ${what}`));
      if (width === 800 && language === "nl") await screenshot(page, `widths-800-nl-${when.replaceAll(" ", "-")}`, { fullPage: false });
    }
  }
  assert.deepEqual(found, [], `cut off on the table ${when}`);
}

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

  // At every width from 320 px to 1280 and in every language, no label of the hand's buttons is cut ("Leave (a bot
  // takes my seat" at 800–999 px, "…казка" at 320), before the deal (Deal, Leave) and in play (Hint, Leave), nor any
  // seat's line ("0 points · 16 c…" at 800–1024 px, "Classement 1500 (provis…" at 800–999, "Bot willekeurig…" at 360,
  // "▶ aan de beurt" over "deler"), nor the
  // status line's turn clock (a day or more left: the deadline's date and time, on a phone its third line).
  const wide = await openPage(browser);
  // Ana is a player (her seat shows her rating: "Rating 1500 (provisional)"), in a game with a clock of three days.
  const gameId = await wide.evaluate(async () => {
    const json = { "Content-Type": "application/json" };
    const player = await fetch("/v1/players", { method: "POST", headers: json, body: JSON.stringify({ name: "Ana" }) }).then((response) => response.json());
    localStorage.setItem("coins.player", JSON.stringify({ id: player.id, key: player.key }));
    const body = { seats: [{ player: "me" }, { bot: "random" }, { bot: "random" }], target_score: 30, first_dealer: 0, turn_timeout_seconds: 3 * 24 * 3600 };
    const headers = { ...json, Authorization: `Bearer ${player.key}` };
    const game = await fetch("/v1/games", { method: "POST", headers, body: JSON.stringify(body) }).then((response) => response.json());
    return game.id;
  });
  await wide.goto(`${BASE_URL}/#/game/${encodeURIComponent(gameId)}`);
  await wide.locator("button[data-key=deal]").waitFor();
  await wide.locator('.seat-card[data-seat="0"] .seat-rating .rating-long').filter({ hasText: /\d/ }).waitFor();
  await assertNothingCut(wide, "before the deal");
  await wide.setViewportSize({ width: 1280, height: 900 });
  await wide.locator("button[data-key=deal]").click();
  await wide.locator(".table[data-status=playing] button[data-key=hint]").waitFor();
  await assertNothingCut(wide, "in play");
  assertNoConsoleErrors(wide);
});
