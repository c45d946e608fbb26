// @ts-check
// Quickstart: create a player, start a game against two bots, play it from your feed alone.
import { createCoinsClient, followPlayer } from "coins-client";

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8000";

const { data: player, error } = await createCoinsClient(baseUrl).POST("/v1/players", {
  body: { name: `Quinn-${Math.random().toString(16).slice(2, 8)}` },
});
if (error) throw new Error(`${error.code}: ${error.detail}`); // a Problem: its code says why
const me = createCoinsClient(baseUrl, { token: player.key }); // your key: keep it secret

const feed = followPlayer(baseUrl, { token: player.key }); // typed events; resumes by itself
await feed.next(); // the `player` event (your state): news follow
const created = await me.POST("/v1/games", {
  body: { seats: [{ player: "me" }, { bot: "basic" }, { bot: "random" }], target_score: 5 },
});
if (created.error) throw new Error(`${created.error.code}: ${created.error.detail}`);
const game = created.data;
console.log("game", game.id);

for await (const event of feed) {
  if (event.type === "your_turn" && event.game === game.id) {
    const path = { params: { path: { game_id: game.id } } };
    if (event.action === "deal") {
      await me.POST("/v1/games/{game_id}/hands", path);
    } else if (event.action === "play" && event.hand?.cards[0]) {
      const card = event.hand.cards[0]; // any card in hand may be played
      await me.POST("/v1/games/{game_id}/plays", { ...path, body: { card } });
      console.log(`hand ${event.hand.hand_number}: you play ${card}`);
    }
  } else if (event.type === "game_result" && event.game === game.id) {
    console.log(`game over: place ${event.place}, scores ${event.scores.join(" ")}`);
    break;
  }
}
