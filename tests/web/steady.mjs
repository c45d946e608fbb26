// A steady table: through a whole game (several hands, the dealer's turns, held tricks, hand summaries, the end)
// the hand row, the trick area and the status line keep their places, at 1280×720 and on a 390×844 phone, and so
// does what lies below the hand on a desktop (the last trick's notes) until the game is over: the hand's panel keeps
// its height between hands.
// Each is sampled every 50 ms; none may move more than 4 px while it is on the page.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, createGame, openPage, playToTheEnd, scenario, screenshot } from "./browser.mjs";

const MOST_PX = 4;
const WATCHED = { hand: ".your-hand .hand", trick: ".trick-slots", status: ".status-line" };
/** Below the hand, on a desktop (one row of cards; a phone's hand loses a row of six as they are played). */
const BELOW = { below: ".table-notes" };

/** Sample the watched elements' page positions every 50 ms (while each is on the page). */
const startSampling = (page, watched) =>
  page.evaluate((watched) => {
    window.samples = Object.fromEntries(Object.keys(watched).map((name) => [name, []]));
    window.sampler = setInterval(() => {
      for (const [name, selector] of Object.entries(watched)) {
        const element = document.querySelector(selector);
        if (!element) continue;
        const box = element.getBoundingClientRect();
        const status = document.querySelector(".table")?.dataset.status;
        if (name === "below" && status === "finished") continue; // the hand's panel goes once the game is over
        window.samples[name].push({ top: Math.round(box.top + window.scrollY), left: Math.round(box.left), status, cards: element.childElementCount });
      }
    }, 50);
  }, watched);

/** How far each watched element moved (the largest minus the smallest top, and left), with how many samples. */
const movements = (page) =>
  page.evaluate(() => {
    clearInterval(window.sampler);
    return Object.fromEntries(
      Object.entries(window.samples).map(([name, samples]) => {
        const tops = samples.map((sample) => sample.top);
        const lefts = samples.map((sample) => sample.left);
        return [name, { samples: samples.length, moved: Math.max(...tops) - Math.min(...tops), sideways: Math.max(...lefts) - Math.min(...lefts), tops: [...new Set(tops)] }];
      }),
    );
  });

await scenario(async (browser) => {
  for (const [label, options, watched] of [
    ["desktop", { viewport: { width: 1280, height: 720 } }, { ...WATCHED, ...BELOW }],
    ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }, WATCHED],
  ]) {
    const page = await openPage(browser, { trickPauseMs: 120, ...options });
    await createGame(page, { name: "Ana", target: 14, seats: ["you", "bot:basic", "bot:random"] });
    await page.locator(".table:not([data-status=waiting_for_players])").waitFor();
    await startSampling(page, watched);
    let shot = false;
    await playToTheEnd([page], {
      onStep: async (step) => {
        if (step === 12) {
          await page.waitForTimeout(700); // the cards' moves over (a picture only: nothing is timed)
          await screenshot(page, `steady-${label}`, { fullPage: false }); // a trick in play
        }
        if (!shot && (await page.locator("#hand-summary").count())) {
          shot = true;
          await screenshot(page, `steady-summary-${label}`, { fullPage: false });
        }
      },
    });
    await page.locator("#winner").waitFor();
    const moved = await movements(page);
    await screenshot(page, `steady-finished-${label}`, { fullPage: false });
    console.log(label, JSON.stringify(moved));
    for (const [name, { samples, moved: px, sideways, tops }] of Object.entries(moved)) {
      assert.ok(samples > 20, `${label}: ${name} was sampled ${samples} times`);
      assert.ok(px <= MOST_PX, `${label}: the ${name} moved ${px} px up or down (at ${tops.join(", ")})`);
      assert.ok(sideways <= MOST_PX, `${label}: the ${name} moved ${sideways} px sideways`);
    }
    assertNoConsoleErrors(page);
  }
});
