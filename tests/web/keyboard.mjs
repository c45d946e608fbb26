// The table and the profile with the keyboard alone and a screen reader's ears: a card played with Enter leaves the
// keyboard on the card that took its place; the leave question takes the keyboard (on Stay) and Escape closes it,
// giving it back to Leave, as Escape does the hint (back to Hint), which covers neither Hint nor the cards; Deal, once
// gone, leaves the keyboard on the table; the hidden announcer says every card played (the one that completes a trick
// too, not only who won it) and that it is your turn when it becomes so; the focus ring stands out on the paper (3:1);
// the profile's key question takes the keyboard and Escape answers Keep; Play now's waiting is not read out each second
// as its time waited counts; a refused key leaves "I have a key" open with the keyboard in its field; signing in, or
// making a player, leaves it on the line saying who is signed in.

import assert from "node:assert/strict";

import { BASE_URL, STEP_MS, assertAccessible, assertNoConsoleErrors, coveredByHint, openPage, scenario, screenshot } from "./browser.mjs";

/** Everything the table's hidden announcer says, in order (each change of its text). */
function listenToAnnouncer() {
  window.said = [];
  new MutationObserver(() => {
    const text = document.querySelector(".table-view")?.previousElementSibling?.textContent ?? "";
    if (text && text !== window.said.at(-1)) window.said.push(text);
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

/** What has the keyboard: its data-key, id or class. */
const focusOf = (page) =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return "body";
    return active instanceof HTMLElement ? active.dataset.key ?? (active.id || active.className) : active.tagName;
  });

/** WCAG's contrast ratio of two CSS rgb() colours. @param {string} a @param {string} b */
function contrast(a, b) {
  const luminance = (color) => {
    const [r, g, bl] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => Number(part) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

await scenario(async (browser) => {
  const page = await openPage(browser, { trickPauseMs: 200 });
  await page.addInitScript(listenToAnnouncer);
  // The person against two bots, and the first to deal.
  const gameId = await page.evaluate(async () => {
    const body = { seats: [{ name: "Kay" }, { bot: "basic" }, { bot: "expert" }], target_score: 30, first_dealer: 0 };
    const game = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }).then((response) => response.json());
    localStorage.setItem(`coins.seat.${game.id}`, JSON.stringify({ seat: 0, token: game.credentials[0].token }));
    return game.id;
  });
  await page.goto(`${BASE_URL}/#/game/${encodeURIComponent(gameId)}`);
  await page.reload(); // the announcer's listener, from the start of the table
  await page.locator("button[data-key=deal]").waitFor();

  // Deal with Enter: the button goes, the keyboard stays on the table (its next Tab is the table's first control).
  const deal = page.locator("button[data-key=deal]");
  await deal.focus();
  await page.keyboard.press("Enter");
  await page.locator(".your-hand .card-button").first().waitFor();
  assert.equal(await focusOf(page), "table-view", "Deal went and took the keyboard with it");

  // The leave question: it takes the keyboard on Stay; Escape closes it and gives the keyboard back to Leave.
  await page.locator("button[data-key=leave]").focus();
  await page.keyboard.press("Enter");
  await page.locator("[role=alertdialog]").waitFor();
  assert.equal(await focusOf(page), "leave-no", "the leave question did not take the keyboard");
  await assertAccessible(page, "the leave question");
  await page.keyboard.press("Escape");
  await page.locator("[role=alertdialog]").waitFor({ state: "detached" });
  assert.equal(await focusOf(page), "leave", "Escape did not give the keyboard back to Leave");
  // Stay does the same.
  await page.keyboard.press("Enter");
  await page.locator("[role=alertdialog]").waitFor();
  await page.keyboard.press("Enter"); // on Stay
  await page.locator("[role=alertdialog]").waitFor({ state: "detached" });
  assert.equal(await focusOf(page), "leave");

  // The focus ring on the paper: one of its colours has 3:1 against the panel behind it (the yellow alone has 1.6:1).
  const ring = await page.locator("button[data-key=leave]").evaluate((button) => {
    const style = getComputedStyle(button);
    return { outline: style.outlineColor, shadow: style.boxShadow, paper: getComputedStyle(button.closest(".panel") ?? document.body).backgroundColor };
  });
  const best = Math.max(contrast(ring.outline, ring.paper), ...(ring.shadow.match(/rgba?\([^)]*\)/g) ?? []).map((color) => contrast(color, ring.paper)));
  assert.ok(best >= 3, `the focus ring's best contrast with the paper is ${best.toFixed(2)}:1 (${JSON.stringify(ring)})`);

  // Cards by keyboard: the second card of the row, with Enter; the keyboard then stays on the card that took its place.
  const hintUsed = { done: false };
  for (let turn = 0; turn < 6; turn += 1) {
    await page.locator(".table[data-paced=false] .your-turn .card-button").first().waitFor({ timeout: STEP_MS });
    if (!hintUsed.done) {
      hintUsed.done = true;
      await page.locator("button[data-key=hint]").focus();
      await page.keyboard.press("Enter");
      await page.locator("#hint").waitFor();
      // The hint lies over none of the hand's buttons (Hint keeps the keyboard: it must stay in sight) or cards.
      assert.equal(await focusOf(page), "hint", "the hint took the keyboard from Hint");
      assert.deepEqual(await coveredByHint(page), [], "the hint covers these on a 1280 px screen");
      await screenshot(page, "keyboard-hint", { fullPage: false });
      await page.keyboard.press("Escape");
      await page.locator("#hint").waitFor({ state: "detached" });
      assert.equal(await focusOf(page), "hint", "Escape did not close the hint, or did not give the keyboard back to Hint");
    }
    const row = await page.locator(".your-hand .card-button").evaluateAll((buttons) => buttons.map((button) => button.dataset.key));
    if (row.length < 3) break;
    await page.locator(".your-hand .card-button[tabindex='0']").focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowRight");
    assert.equal(await focusOf(page), row[1]);
    await page.keyboard.press("Enter");
    await page.locator(`.your-hand [data-key="${row[1]}"]`).waitFor({ state: "detached" });
    assert.equal(await focusOf(page), row[2], `after ${row[1]} was played the keyboard is not on ${row[2]}, which took its place`);
  }
  await page.waitForFunction(() => document.querySelector(".table")?.dataset.paced === "false", null, { timeout: STEP_MS });
  await page.waitForTimeout(500);

  // Every card played since the table opened was said, and so was "your turn".
  const said = await page.evaluate(() => window.said.join("\n"));
  const log = await page.locator(".log li").allInnerTexts();
  const played = log.slice(log.findIndex((line) => /dealt hand 1/.test(line))).filter((line) => / played the /.test(line));
  assert.ok(played.length >= 9, `only ${played.length} cards in the log`);
  // The last few may still be on their way to the announcer; every card of a trick already won was said.
  const wonAt = log.findLastIndex((line) => / won the trick /.test(line));
  for (const line of log.slice(0, wonAt + 1).filter((item) => / played the /.test(item))) assert.ok(said.includes(line), `never said: ${line}\nsaid:\n${said}`);
  for (const line of log.slice(0, wonAt + 1).filter((item) => / won the trick /.test(item))) assert.ok(said.includes(line), `never said: ${line}`);
  assert.match(said, /Your turn: choose a card\./, "the turn becoming yours was never said");
  await screenshot(page, "keyboard-table", { fullPage: false });
  assertNoConsoleErrors(page);

  // The profile's key question: it takes the keyboard (on Keep); Escape answers Keep, back on the button that asked.
  const other = await openPage(browser);
  const player = await fetch(`${BASE_URL}/v1/players`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "Kay" }) }).then((response) => response.json());
  await other.evaluate((held) => localStorage.setItem("coins.player", JSON.stringify(held)), { id: player.id, key: player.key });
  await other.goto(`${BASE_URL}/#/me`);
  await other.locator("#key-replace").focus();
  await other.keyboard.press("Enter");
  await other.locator("#key-confirm").waitFor();
  assert.equal(await focusOf(other), "key-keep", "the key's question did not take the keyboard");
  await other.keyboard.press("Escape");
  await other.locator("#key-confirm").waitFor({ state: "detached" });
  assert.equal(await focusOf(other), "key-replace");
  await other.keyboard.press("Shift+Tab"); // Show key: the page drawn again keeps the keyboard on it
  assert.equal(await focusOf(other), "key-show");
  await other.keyboard.press("Enter");
  await other.locator("#key-value").waitFor();
  assert.equal(await focusOf(other), "key-show", "Show key lost the keyboard");

  // Play now, waiting: the time waited is counted each second, but no live region says it each second.
  await other.goto(`${BASE_URL}/#/`);
  await other.fill("#quick-target", "97"); // a kind of game nobody else waits for: nobody is matched with it
  await other.selectOption("#quick-bots", "never");
  await other.click("#play-now");
  await other.locator("[data-ticket=waiting]").waitFor();
  const spoken = await other.evaluate(async () => {
    const changes = [];
    const observer = new MutationObserver((records) => {
      for (const record of records) {
        const node = record.target instanceof Element ? record.target : record.target.parentElement;
        const region = node?.closest("[role=status], [role=alert], [aria-live]:not([aria-live=off])");
        if (region) changes.push(region.textContent);
      }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    observer.disconnect();
    return changes;
  });
  assert.ok(/\d/.test(await other.locator("#quick-waited").innerText()), "the time waited is not shown");
  assert.deepEqual(spoken, [], "a live region changed while waiting: a screen reader reads it out each time");
  await other.click("#quick-cancel");
  await other.locator("#play-now").waitFor();
  assertNoConsoleErrors(other);

  // A refused key: the error, "I have a key" still open, the keyboard still in its field.
  const lobby = await openPage(browser);
  await lobby.locator("details.sign-in summary").click();
  await lobby.fill("#player-key", "cpk_not_a_key_of_anyone");
  await lobby.keyboard.press("Enter");
  await lobby.locator("[data-problem]").waitFor();
  assert.ok(await lobby.locator("details.sign-in").evaluate((details) => details.hasAttribute("open")), "'I have a key' folded up on the refusal");
  assert.equal(await focusOf(lobby), "player-key", "the refusal took the keyboard out of the key's field");
  // The right key: the form is gone, and the keyboard is on the line saying who is signed in, not dropped to the page.
  await lobby.fill("#player-key", player.key);
  await lobby.keyboard.press("Enter");
  await lobby.locator("#me-title").waitFor();
  assert.equal(await focusOf(lobby), "me-title", "signing in dropped the keyboard");
  // The only console error: chromium's own report of the refused key's 401.
  assert.deepEqual(lobby.errors.filter((error) => !/401/.test(error)), []);

  // A player made with the keyboard: the same.
  const newcomer = await openPage(browser);
  await newcomer.locator("#player-name").fill("Dee");
  await newcomer.locator("#player-name").press("Enter");
  await newcomer.locator("#me-title").waitFor();
  assert.equal(await focusOf(newcomer), "me-title", "making a player dropped the keyboard");
  assertNoConsoleErrors(newcomer);
});
