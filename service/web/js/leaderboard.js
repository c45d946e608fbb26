// The leaderboard (#/leaderboard): players with a settled rating, best first, a page at a time; below, apart, the
// rising players (still provisional), so that the page shows who plays before anyone has ten rated games.

import * as api from "./api.js";
import { h, replace } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";
import { seatName } from "./names.js";
import { problemNotice } from "./notice.js";
import { loadPlayer } from "./store.js";

/** @param {HTMLElement} root @returns {() => void} unmount */
export function mountLeaderboard(root) {
  /** @typedef {{entries: import("./types.js").LeaderboardEntry[], next: string|null, loaded: boolean, error: unknown}} Board */
  /** @type {Board} the settled ratings */
  const state = { entries: [], next: null, loaded: false, error: null };
  /** @type {Board} the rising players (`provisional=true`), ranked apart */
  const rising = { entries: [], next: null, loaded: false, error: null };
  const view = h("section", { class: "panel leaderboard", "aria-labelledby": "leaderboard-title" });
  const risingView = h("section", { class: "panel leaderboard", "aria-labelledby": "rising-title" });
  replace(root, view, risingView);
  const stopLanguage = onLanguageChange(render);
  more(state, false);
  more(rising, true);

  /** The next page of a board. @param {Board} board @param {boolean} provisional */
  async function more(board, provisional) {
    try {
      const page = await api.getLeaderboard(board.next, provisional);
      board.entries.push(...page.items);
      board.next = page.next_cursor;
      board.error = null;
    } catch (error) {
      board.error = error;
    }
    board.loaded = true;
    render();
  }

  /** A bot's player is named as its seats are, in the current language. @param {import("./types.js").LeaderboardEntry} entry */
  const nameOf = (entry) => seatName({ seat: 0, name: entry.player.name, bot: entry.player.bot, open: false, player: null, score: 0, tricks_won: 0, cards_in_hand: 0, rating: null, rating_change: null, reserved_for: null });

  function render() {
    replace(
      view,
      h("h2", { id: "leaderboard-title" }, t("leaderboard.title")),
      h("p", {}, t("leaderboard.intro")),
      state.error ? problemNotice(state.error) : null,
      state.loaded && !state.entries.length && !state.error && h("p", { id: "leaderboard-empty" }, t("leaderboard.empty")),
      state.entries.length > 0 && ranking(state.entries, "ranking"),
      state.next && h("p", {}, h("button", { type: "button", id: "leaderboard-more", onclick: () => more(state, false) }, t("leaderboard.more"))),
    );
    replace(
      risingView,
      h("h2", { id: "rising-title" }, t("leaderboard.rising")),
      h("p", {}, t("leaderboard.risingIntro")),
      rising.error ? problemNotice(rising.error) : null,
      rising.loaded && !rising.entries.length && !rising.error && h("p", { id: "rising-empty" }, t("leaderboard.noRising")),
      rising.entries.length > 0 && ranking(rising.entries, "ranking rising"),
      rising.next && h("p", {}, h("button", { type: "button", id: "rising-more", onclick: () => more(rising, true) }, t("leaderboard.more"))),
      h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))),
    );
  }

  /** A board's table: rank, player (yours marked), rating, rated games. @param {import("./types.js").LeaderboardEntry[]} entries @param {string} className */
  function ranking(entries, className) {
    const me = loadPlayer()?.id;
    return h(
      "table",
      { class: className },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("leaderboard.rank")), h("th", { scope: "col" }, t("leaderboard.player")), h("th", { scope: "col" }, t("profile.rating")), h("th", { scope: "col" }, t("profile.ratedGames")))),
      h(
        "tbody",
        {},
        entries.map((entry) =>
          h(
            "tr",
            { "data-player": entry.player.id, class: entry.player.id === me ? "me" : null },
            h("td", {}, String(entry.rank)),
            h("th", { scope: "row" }, h("a", { href: `#/player/${encodeURIComponent(entry.player.id)}` }, nameOf(entry)), entry.player.id === me && h("span", { class: "visually-hidden" }, ` (${t("seat.you")})`)),
            h("td", {}, String(entry.rating.value)),
            h("td", {}, String(entry.rating.games)),
          ),
        ),
      ),
    );
  }

  return () => stopLanguage();
}
