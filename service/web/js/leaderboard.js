// The leaderboard (#/leaderboard): players with a settled rating, best first, a page at a time.

import * as api from "./api.js";
import { h, replace } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";
import { seatName } from "./names.js";
import { problemNotice } from "./notice.js";
import { loadPlayer } from "./store.js";

/** @param {HTMLElement} root @returns {() => void} unmount */
export function mountLeaderboard(root) {
  /** @type {{entries: import("./types.js").LeaderboardEntry[], next: string|null, loaded: boolean, error: unknown}} */
  const state = { entries: [], next: null, loaded: false, error: null };
  const view = h("section", { class: "panel leaderboard", "aria-labelledby": "leaderboard-title" });
  replace(root, view);
  const stopLanguage = onLanguageChange(render);
  more();

  async function more() {
    try {
      const page = await api.getLeaderboard(state.next);
      state.entries.push(...page.items);
      state.next = page.next_cursor;
      state.error = null;
    } catch (error) {
      state.error = error;
    }
    state.loaded = true;
    render();
  }

  /** A bot's player is named as its seats are, in the current language. @param {import("./types.js").LeaderboardEntry} entry */
  const nameOf = (entry) => seatName({ seat: 0, name: entry.player.name, bot: entry.player.bot, open: false, player: null, score: 0, tricks_won: 0, cards_in_hand: 0, rating: null, rating_change: null, reserved_for: null });

  function render() {
    const me = loadPlayer()?.id;
    replace(
      view,
      h("h2", { id: "leaderboard-title" }, t("leaderboard.title")),
      h("p", {}, t("leaderboard.intro")),
      state.error ? problemNotice(state.error) : null,
      state.loaded && !state.entries.length && !state.error && h("p", { id: "leaderboard-empty" }, t("leaderboard.empty")),
      state.entries.length > 0 &&
        h(
          "table",
          { class: "ranking" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("leaderboard.rank")), h("th", { scope: "col" }, t("leaderboard.player")), h("th", { scope: "col" }, t("profile.rating")), h("th", { scope: "col" }, t("profile.ratedGames")))),
          h(
            "tbody",
            {},
            state.entries.map((entry) =>
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
        ),
      state.next && h("p", {}, h("button", { type: "button", id: "leaderboard-more", onclick: more }, t("leaderboard.more"))),
      h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))),
    );
  }

  return () => stopLanguage();
}
