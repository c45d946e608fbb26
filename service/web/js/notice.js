// Messages shown to the player: an API problem in words, or a note, in a region screen readers announce.

import { h } from "./dom.js";
import { problemMessage, t } from "./i18n.js";

/** A problem (ApiProblem or any error) as a translated message box. @param {unknown} error */
export function problemNotice(error) {
  const code = error && typeof error === "object" && "code" in error ? String(error.code) : "internal_error";
  return h("p", { class: "message error", role: "alert", "data-problem": code }, problemMessage(code));
}

/** @param {string} text */
export const infoNotice = (text) => h("p", { class: "message info", role: "status" }, text);

/**
 * A seeded game's mark: its deals follow from its seed, so it is for tests, demos and replays.
 * The notice for the table and its record, the badge for a line of the lobby; nothing for other games.
 * @param {{seeded: boolean}} game
 */
export const seededNotice = (game) => game.seeded && h("p", { class: "message seeded", "data-seeded": "true" }, t("seeded.notice"));

/** @param {{seeded: boolean}} game */
export const seededBadge = (game) => game.seeded && h("span", { class: "badge seeded", "data-seeded": "true", title: t("seeded.notice") }, t("seeded.badge"));
