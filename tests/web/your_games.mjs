// A signed-in player's games and ratings: the lobby lists the games in play apart from the results (a finished game
// leaves the games in play; a game in play says whose turn it is, a correspondence clock's end as a date, and is not
// offered to watch); a game nobody has touched for a day shows its age (the browser's clock two days on);
// the profile's lines name the opponents, the place and the scores; the leaderboard shows the rising players apart
// from the ranked, before anyone has ten rated games; a phone's seat lines show each rating change whole; and the
// page does not scroll by itself when a game ends, nor leaves a blank under the table. axe-core on each page.

import assert from "node:assert/strict";

import { BASE_URL, STEP_MS, assertAccessible, assertNoConsoleErrors, openPage, scenario, screenshot } from "./browser.mjs";

const MAX_STEPS = 300; // requests within one game
const DAY_MS = 86_400_000;

/** One call of the API with the player's key (a POST with an Idempotency-Key of its own). */
async function call(key, method, path, body) {
  const headers = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();
  const response = await fetch(`${BASE_URL}/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${data?.code}`);
  return data;
}

/** A game of the player (seat 0) against two bots, dealt by the server. */
const newGame = (key, bots, { rated = false, target = 1, clock = 600 } = {}) =>
  call(key, "POST", "/games", { target_score: target, rated, auto_deal: true, turn_timeout_seconds: clock, seats: [{ player: "me" }, ...bots.map((bot) => ({ bot }))] });

/** Play the player's seat (its first card each time) until the game is over; the worker moves the bots. */
async function playOut(key, id, { pauseMs = 20 } = {}) {
  let game = await call(key, "GET", `/games/${id}`);
  for (let step = 0; step < MAX_STEPS && game.status !== "finished"; step += 1) {
    if (game.turn === 0 && game.status === "playing") {
      const hand = await call(key, "GET", `/games/${id}/hand`);
      game = (await call(key, "POST", `/games/${id}/plays`, { card: hand.cards[0] })).game;
    } else {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      game = await call(key, "GET", `/games/${id}`);
    }
  }
  assert.equal(game.status, "finished", `game ${id} did not finish`);
  return game;
}

/** Wait until the worker has applied the player's rated games. */
async function settle(key, id, games) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if ((await call(key, "GET", `/players/${id}`)).rating.games === games) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the rating of ${id} does not count ${games} games after 10 s`);
}

/** A page signed in as the player (their key kept as the lobby keeps it), the browser's clock `aheadMs` ahead. */
async function signedInPage(browser, player, options, aheadMs = 0) {
  const page = await openPage(browser, options);
  await page.evaluate(({ id, key }) => localStorage.setItem("coins.player", JSON.stringify({ id, key })), player);
  if (aheadMs) {
    await page.context().addInitScript((ahead) => {
      const now = Date.now.bind(Date);
      Date.now = () => now() + ahead;
    }, aheadMs);
  }
  await page.reload(); // the lobby again, signed in (and with the clock moved on)
  await page.locator("#play-now").waitFor();
  return page;
}

await scenario(async (browser) => {
  const player = await fetch(`${BASE_URL}/v1/players`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({ name: "Eva" }),
  }).then((response) => response.json());
  const key = player.key;
  const id = player.id;

  // Two rated games against three different bots (the rising players' floor), played out; one game left in play.
  const finished = [];
  for (const bots of [["random", "basic"], ["basic", "expert"]]) {
    const game = await newGame(key, bots, { rated: true });
    finished.push(await playOut(key, game.id));
  }
  await settle(key, id, 2);
  const inPlay = await newGame(key, ["basic", "expert"], { target: 30, clock: 3 * 86_400 }); // a correspondence clock

  // The lobby: the game in play under "Your games", the finished ones under "Your results" only.
  const desk = await signedInPage(browser, { id, key }, { viewport: { width: 1280, height: 720 } });
  await desk.locator(`#own-playing [data-game="${inPlay.id}"]`).waitFor();
  // Its line says whose turn it is, and until when on yours (days away: a date); it is not offered to watch.
  const own = desk.locator(`#own-playing [data-game="${inPlay.id}"]`);
  await desk.waitForFunction((id) => document.querySelector(`#own-playing [data-game="${id}"]`)?.dataset.yourTurn === "true", inPlay.id, { timeout: STEP_MS });
  assert.match(await own.innerText(), /^Your turn — Resume: .* · Turn ends \w{3} \d{1,2}, \d{4}/, await own.innerText());
  await desk.locator("section[aria-labelledby=playing-title] li, section[aria-labelledby=playing-title] p").first().waitFor();
  assert.equal(await desk.locator(`section[aria-labelledby=playing-title] [data-game="${inPlay.id}"]`).count(), 0, "your own game offered to watch");
  for (const game of finished) {
    await desk.locator(`#own-results [data-game="${game.id}"]`).waitFor();
    assert.equal(await desk.locator(`#own-playing [data-game="${game.id}"], .open-games [data-game="${game.id}"]`).count(), 0, "a finished game among the games in play");
  }
  assert.equal(await desk.locator("[data-idle]").count(), 0, "a fresh game shows no age");
  await screenshot(desk, "lobby-results", { fullPage: false });
  // A game the player left while it is played is not theirs to resume: it is there to watch.
  const left = await newGame(key, ["basic", "expert"], { target: 30 });
  await call(key, "POST", `/games/${left.id}/players/0/leave`, {});
  await desk.reload();
  await desk.locator(`section[aria-labelledby=playing-title] [data-game="${left.id}"] [data-key=watch]`).waitFor();
  assert.equal(await desk.locator(`#own-playing [data-game="${left.id}"]`).count(), 0, "a game you left offered to resume");
  await assertAccessible(desk, "the lobby with your games and results");

  // The profile: each finished game's line names the opponents with their scores, and the place.
  await desk.goto(`${BASE_URL}/#/me`);
  for (const game of finished) {
    const line = await desk.locator(`.own-games [data-game="${game.id}"]`).innerText();
    const others = game.seats.slice(1).map((seat) => `${seat.name} ${seat.score}`).join(", ");
    assert.ok(line.includes(`you ${game.seats[0].score}, against ${others}`), line);
    assert.match(line, /place [123]: 1\d{3} → \d+/, line);
  }
  const open = await desk.locator(`.own-games [data-game="${inPlay.id}"]`).innerText();
  assert.match(open, /playing · .* · you 0, against Basic bot 0, Expert bot 0/, open); // your own profile says "you"
  await screenshot(desk, "profile-lines", { fullPage: false });
  await assertAccessible(desk, "a profile with opponents, places and scores");

  // The leaderboard: nobody is ranked yet, but the rising players are listed, this one among them.
  await desk.goto(`${BASE_URL}/#/leaderboard`);
  await desk.locator(`.ranking.rising tr[data-player="${id}"]`).waitFor();
  assert.equal(await desk.locator(`.ranking:not(.rising) tr[data-player="${id}"]`).count(), 0, "a provisional rating ranked");
  assert.match(await desk.locator("#rising-title").innerText(), /Rising players/);
  await screenshot(desk, "leaderboard-rising", { fullPage: false });
  await assertAccessible(desk, "the leaderboard with rising players");
  assertNoConsoleErrors(desk);

  // Two days on (the browser's clock): the game in play shows its age, and it is listed after the fresh ones.
  const later = await signedInPage(browser, { id, key }, { viewport: { width: 1280, height: 720 } }, 2 * DAY_MS);
  const idle = later.locator(`#own-playing [data-game="${inPlay.id}"] [data-idle]`);
  await idle.waitFor();
  assert.equal((await idle.innerText()).trim(), "· last move 2 days ago");
  // Someone else's lobby, two days on too: the game is there to watch, with its age.
  const onlooker = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  await onlooker.context().addInitScript((ahead) => {
    const now = Date.now.bind(Date);
    Date.now = () => now() + ahead;
  }, 2 * DAY_MS);
  await onlooker.reload();
  await onlooker.locator(`section[aria-labelledby=playing-title] [data-game="${inPlay.id}"] [data-idle]`).waitFor();
  assert.equal(await later.locator(`section[aria-labelledby=playing-title] [data-game="${inPlay.id}"]`).count(), 0, "your own game offered to watch");
  await later.goto(`${BASE_URL}/#/me`);
  assert.match(await later.locator(`.own-games [data-game="${inPlay.id}"]`).innerText(), /last move 2 days ago/);
  await later.goto(`${BASE_URL}/#/`);
  await idle.waitFor();
  await screenshot(later, "lobby-idle", { fullPage: true });
  await assertAccessible(later, "the lobby with a game untouched for two days");
  assertNoConsoleErrors(later, onlooker);

  // A phone: a finished rated game's seat lines show each change whole ("1517 (+17)"), none cut off.
  const phoneOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };
  const phone = await signedInPage(browser, { id, key }, phoneOptions);
  await phone.goto(`${BASE_URL}/#/game/${finished[1].id}`);
  // (Waited for: the finished table reads the game again until the changes show, and draws it anew each time.)
  const whole = () => {
    const lines = [...document.querySelectorAll(".seat-rating")];
    return lines.length === 3 && lines.every((line) => /^\d+ \([+−±]\d+\)$/.test(line.innerText) && line.scrollWidth <= line.clientWidth);
  };
  await phone.waitForFunction(whole, null, { timeout: STEP_MS }).catch(async () => {
    const lines = await phone.locator(".seat-rating").evaluateAll((elements) => elements.map((element) => ({ text: element.innerText, cut: element.scrollWidth > element.clientWidth })));
    assert.fail(`a phone's seat lines are not each change whole: ${JSON.stringify(lines)}`);
  });
  await screenshot(phone, "seat-lines-phone", { fullPage: false });
  await assertAccessible(phone, "a finished rated game's seat lines on a phone");

  // The same pages on the phone.
  for (const [hash, shot, what] of [["#/", "lobby-results-phone", `#own-results [data-game="${finished[0].id}"]`], ["#/me", "profile-lines-phone", `.own-games [data-game="${finished[0].id}"]`], ["#/leaderboard", "leaderboard-rising-phone", `.ranking.rising tr[data-player="${id}"]`]]) {
    await phone.goto(`${BASE_URL}/${hash}`);
    await phone.locator(what).waitFor();
    if (hash === "#/me") await phone.locator(what).scrollIntoViewIfNeeded();
    await screenshot(phone, shot, { fullPage: false });
    await assertAccessible(phone, `${hash} on a phone`);
  }
  assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, "the leaderboard is wider than the phone");

  // The page does not scroll by itself when a game ends: scrolled down to the hand, the reader stays put while the
  // last cards are played (by the API, so that nothing in the test scrolls the page).
  const ending = await newGame(key, ["random", "basic"]);
  await phone.goto(`${BASE_URL}/#/game/${ending.id}`);
  await phone.locator(".your-hand .card-button").first().waitFor();
  await phone.evaluate(async () => {
    window.scrollTo(0, document.documentElement.scrollHeight);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))); // its own scroll event first
    window.scrolls = [];
    addEventListener("scroll", () => window.scrolls.push(Math.round(scrollY)));
  });
  const before = await phone.evaluate(() => Math.round(scrollY));
  assert.ok(before > 0, "the page is not scrolled");
  await playOut(key, ending.id, { pauseMs: 60 });
  await phone.locator("#winner").waitFor();
  await phone.locator(".table[data-paced=false]").waitFor();
  const scrolled = await phone.evaluate(() => window.scrolls);
  assert.deepEqual(scrolled, [], `the page scrolled by itself from ${before}`);
  await screenshot(phone, "game-end-phone", { fullPage: false });
  // Nor is a blank left under the finished table: what the page kept under the reader goes as they scroll back up.
  const blank = await phone.evaluate(async () => {
    scrollTo(0, 0);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return Math.round(document.querySelector(".table-view").getBoundingClientRect().bottom - document.querySelector(".table").getBoundingClientRect().bottom);
  });
  assert.ok(blank <= 1, `${blank} px blank under the finished table`);
  assertNoConsoleErrors(phone);
});
