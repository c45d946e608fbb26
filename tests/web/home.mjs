// The first screen says in one line what Coins is, with one Play button, on a phone's first screen and at 1280×720;
// Play seats you at once against two bots; a phone's hand cards are larger than 31×47 px; the page in Spanish says
// "reparte" for the dealer, names an open seat (and a bot) once, and its hidden announcer switches language with the page.

import assert from "node:assert/strict";

import en from "../../service/web/js/messages/en.js";
import es from "../../service/web/js/messages/es.js";
import fr from "../../service/web/js/messages/fr.js";
import nl from "../../service/web/js/messages/nl.js";
import uk from "../../service/web/js/messages/uk.js";
import zhHant from "../../service/web/js/messages/zh-Hant.js";
import { BASE_URL, STEP_MS, actIfMyTurn, postsTo, assertAccessible, assertNoConsoleErrors, assertOnScreen, openPage, scenario, screenshot } from "./browser.mjs";

await scenario(async (browser) => {
  const desk = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  await desk.locator("#play-first").waitFor();
  assert.match(await desk.locator("#intro-title").innerText(), /^Coins is a card game for three/);
  await assertOnScreen(desk, "#intro-title, #play-first", "the first screen's line and Play");
  await screenshot(desk, "first-screen-desktop", { fullPage: false });
  await assertAccessible(desk, "the first screen");
  assertNoConsoleErrors(desk);

  const phone = await openPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await phone.locator("#play-first").waitFor();
  await assertOnScreen(phone, "#intro-title, #play-first", "the phone's first screen's line and Play");
  assert.equal(await phone.locator(".intro button").count(), 1, "one Play button");
  await screenshot(phone, "first-screen-phone", { fullPage: false });
  await assertAccessible(phone, "the first screen on a phone");
  // In every language, the line and Play fit the phone's first screen.
  for (const [code, messages] of Object.entries({ es, nl, "zh-Hant": zhHant, fr, uk, en })) {
    await phone.selectOption("#language", code);
    assert.equal(await phone.locator("#intro-title").innerText(), messages["home.pitch"], code);
    assert.equal(await phone.locator("#play-first").innerText(), messages["home.play"], code);
    await assertOnScreen(phone, "#intro-title, #play-first", `the phone's first screen in ${code}`);
  }
  await assertAccessible(phone, "the first screen on a phone (back in English)");

  // Play: a game at once, you against two bots (as a guest: no name was asked); a double tap makes one game.
  await phone.dblclick("#play-first");
  await phone.locator(".table .your-hand .card-button").first().waitFor();
  const id = decodeURIComponent(new URL(phone.url()).hash.split("/")[2]);
  const game = await phone.evaluate(async (game) => (await fetch(`/v1/games/${game}`)).json(), id);
  assert.deepEqual(game.seats.map((seat) => seat.bot), [null, "basic", "expert"]);
  assert.equal(game.seats[0].name, "Guest");
  assert.equal(postsTo(phone, "/v1/games"), 1, "a double click on Play made more than one game");

  // The hand's cards on a phone: larger than the 31×47 px they were, or overlapping.
  const sizes = await phone.locator(".your-hand .card-face").evaluateAll((faces) => faces.map((face) => face.getBoundingClientRect()).map((box) => [box.width, box.height]));
  assert.equal(sizes.length, 16);
  for (const [width, height] of sizes) assert.ok(width > 31 && height > 47, `a hand card of ${width}×${height} px`);
  console.log(`phone hand card: ${sizes[0][0].toFixed(1)}×${sizes[0][1].toFixed(1)} px`);

  // The announcer says the last move; switched to Spanish, it says it again in Spanish, as the log does.
  const announcer = phone.locator(".visually-hidden[role=status]");
  for (let step = 0; step < 20 && !(await announcer.innerText()); step += 1) {
    if (!(await actIfMyTurn(phone))) await phone.waitForTimeout(250);
  }
  // Switched on your turn, when nothing moves: a move arriving meanwhile would add its own lines to what is said.
  await phone.locator(".your-turn .card-button").first().waitFor({ timeout: STEP_MS });
  const english = await announcer.innerText();
  assert.ok(english, "the announcer said nothing");
  await phone.selectOption("#language", "es");
  await phone.waitForFunction((before) => {
    const said = document.querySelector(".visually-hidden[role=status]")?.textContent ?? "";
    return said && said !== before;
  }, english, { timeout: STEP_MS });
  const spanish = await announcer.innerText();
  const lastLine = await phone.locator(".log li").last().innerText();
  assert.equal(spanish, lastLine, "the announcer says the log's last line");
  assert.doesNotMatch(await phone.locator(".table").innerText(), /crupier|\bel sota\b/);
  await phone.waitForFunction(() => /reparte/.test(document.querySelector(".seats")?.textContent ?? ""), null, { timeout: STEP_MS });
  await screenshot(phone, "table-spanish-phone", { fullPage: false });
  await assertAccessible(phone, "the table in Spanish on a phone");

  // An open seat is named once ("asiento libre"), not twice.
  const open = await fetch(`${BASE_URL}/v1/games`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({ target_score: 3, seats: [{ name: "Host" }, null, { bot: "basic" }] }),
  }).then((response) => response.json());
  await phone.goto(`${BASE_URL}/#/game/${open.id}`);
  await phone.locator('.seat-card[data-seat="1"]').waitFor();
  assert.equal(await phone.locator('.seat-card[data-seat="1"] .seat-name').innerText(), "asiento libre");
  assert.equal(await phone.locator('.seat-card[data-seat="2"] .seat-name').innerText(), "Bot básico", "a bot named once");
  await phone.selectOption("#language", "en");
  assert.equal(await phone.locator('.seat-card[data-seat="1"] .seat-name').innerText(), "open seat");
  assertNoConsoleErrors(phone);
});
