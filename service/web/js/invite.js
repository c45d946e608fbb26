// Invitation links to a game's open seats: /#/game/<id>/join?seat=N (an id, never a token, in a URL).

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").Game} Game */

/** The link that takes a person to the join form of `seat`. @param {string} gameId @param {number} seat */
export const inviteLink = (gameId, seat) => `${location.origin}/#/game/${encodeURIComponent(gameId)}/join?seat=${seat}`;

/** The links to a game's open seats; none (a challenge's seat is reserved, not open): no panel. @param {Game} game */
export function inviteView(game) {
  if (!game.seats.some((seat) => seat.open)) return null;
  return h(
    "section",
    { class: "panel invite", "aria-labelledby": "invite-title" },
    h("h2", { id: "invite-title" }, t("invite.title")),
    game.seats
      .filter((seat) => seat.open)
      .map((seat) => {
        const id = `invite-${seat.seat}`;
        const field = h("input", { id, type: "url", readonly: true, value: inviteLink(game.id, seat.seat), "data-invite": seat.seat, "data-key": `invite:${seat.seat}` });
        const copy = h("button", { type: "button", "data-key": `copy-${seat.seat}` }, t("invite.copy"));
        copy.addEventListener("click", async () => {
          field.select();
          await navigator.clipboard?.writeText(field.value).catch(() => undefined);
          copy.textContent = t("invite.copied");
        });
        return h("div", { class: "invite" }, h("label", { for: id }, t("invite.seat", { n: seat.seat + 1 })), h("div", { class: "actions" }, field, copy));
      }),
  );
}
