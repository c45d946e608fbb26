// The page for a game that is not there (a mistyped or cut-off link, or a game since removed), with the way back.

import { h, replace } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";

/** Whether `id` can be a game's id (26 characters of Crockford base32): any other is not looked up. @param {string} id */
export const isGameId = (id) => /^[0-9a-hjkmnp-tv-z]{26}$/i.test(id);

/** Whether an error says the game does not exist. @param {unknown} error */
export const isMissingGame = (error) =>
  Boolean(error && typeof error === "object" && "code" in error && (error.code === "game_not_found" || error.code === "not_found"));

/** @param {string} gameId as the link gave it */
export function missingGameView(gameId) {
  return h(
    "article",
    { class: "panel missing-game", "aria-labelledby": "missing-title", "data-missing": "game" },
    h("h2", { id: "missing-title" }, t("missing.title")),
    h("p", {}, t("missing.text", { id: gameId })),
    h("p", {}, t("missing.why")),
    h(
      "p",
      { class: "actions" },
      h("a", { class: "button primary", href: "#/", "data-key": "lobby" }, t("table.backToLobby")),
      h("a", { class: "button", href: "#/rules" }, t("rules.title")),
    ),
  );
}

/** The page alone, for a link whose id cannot be a game's (nothing is asked of the service). @param {HTMLElement} root @param {string} gameId */
export function mountMissingGame(root, gameId) {
  const render = () => replace(root, missingGameView(gameId));
  render();
  return onLanguageChange(render);
}
