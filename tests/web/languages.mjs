// The language comes from the browser's preference, switches with the picker, and is remembered.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, createGame, openPage, scenario } from "./browser.mjs";

/** A text each language shows at the table: its name for the coins suit, from its rule sheet. */
const COINS = { en: "coins", es: "oros", nl: "Munten", "zh-Hant": "硬幣", fr: "Pièces", uk: "Монети" };

await scenario(async (browser) => {
  const page = await openPage(browser, { locale: "es-ES" });
  assert.equal(await page.getAttribute("html", "lang"), "es");
  assert.equal(await page.locator("#create-title").innerText(), "Nueva partida");

  await createGame(page, { name: "Ana", target: 5, seats: ["you", "bot:basic", "bot:random"] });
  for (const [code, word] of Object.entries(COINS)) {
    await page.selectOption("#language", code);
    assert.equal(await page.getAttribute("html", "lang"), code);
    await page.locator(".cycle", { hasText: word }).waitFor();
  }
  await page.selectOption("#language", "zh-Hant");
  await page.reload();
  await page.locator(".cycle", { hasText: COINS["zh-Hant"] }).waitFor();
  assert.equal(await page.inputValue("#language"), "zh-Hant");

  const dutch = await openPage(browser, { locale: "nl-BE" });
  assert.equal(await dutch.getAttribute("html", "lang"), "nl");
  const chinese = await openPage(browser, { locale: "zh-TW" });
  assert.equal(await chinese.getAttribute("html", "lang"), "zh-Hant");
  assertNoConsoleErrors(page, dutch, chinese);
});
