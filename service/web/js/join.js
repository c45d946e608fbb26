// Joining a game from an invitation: pick an open seat, give a name, take the seat (the token stays local); or take it as your player.

import * as api from "./api.js";
import { h, oneAtATime, replace } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";
import { seatName } from "./names.js";
import { problemNotice } from "./notice.js";
import { isMissingGame, missingGameView } from "./missing.js";
import { loadName, loadPlayer, saveName, saveSeat } from "./store.js";

/**
 * @param {HTMLElement} root
 * @param {string} gameId
 * @param {number|null} wanted the seat named by the invitation
 * @returns {() => void} unmount
 */
export function mountJoin(root, gameId, wanted) {
  /** @type {{game: import("./types.js").Game|null, error: unknown}} */
  const state = { game: null, error: null };
  const name = h("input", { id: "join-name", name: "name", required: true, maxlength: 40, autocomplete: "nickname", value: loadName() });
  const age = h("input", { id: "join-age", name: "age", type: "number", min: 0, max: 150, inputmode: "numeric" });
  const seatSelect = h("select", { id: "join-seat", name: "seat" });
  const stopLanguage = onLanguageChange(render);
  load();

  async function load() {
    try {
      state.game = await api.getGame(gameId);
    } catch (error) {
      state.error = error;
    }
    render();
  }

  const join = oneAtATime(async () => {
    try {
      const body = { name: name.value.trim(), age: age.value ? Number(age.value) : null, seat: Number(seatSelect.value) };
      const joined = await api.joinGame(gameId, body);
      if (joined.token === null) throw new Error("an anonymous seat comes with its token");
      saveSeat(gameId, { seat: joined.seat, token: joined.token });
      saveName(body.name);
      location.hash = `#/game/${encodeURIComponent(gameId)}`;
    } catch (error) {
      state.error = error;
      render();
    }
  });

  /** Take the seat for the signed-in player: no token comes (their key acts for it), so nothing is stored. */
  const joinAsPlayer = oneAtATime(async () => {
    const held = loadPlayer();
    if (!held) return;
    try {
      await api.joinGame(gameId, { player: "me", seat: Number(seatSelect.value) }, held.key);
      location.hash = `#/game/${encodeURIComponent(gameId)}`;
    } catch (error) {
      state.error = error;
      render();
    }
  });

  function render() {
    const game = state.game;
    if (!game && isMissingGame(state.error)) return replace(root, missingGameView(gameId));
    const open = game ? game.seats.filter((seat) => seat.open) : [];
    const chosen = open.some((seat) => String(seat.seat) === seatSelect.value) ? Number(seatSelect.value) : open.find((seat) => seat.seat === wanted)?.seat ?? open[0]?.seat;
    replace(seatSelect, open.map((seat) => h("option", { value: seat.seat, selected: seat.seat === chosen }, t("seat.number", { n: seat.seat + 1 }))));
    const players = game ? game.seats.filter((seat) => !seat.open).map((seat) => seatName(seat)).join(", ") : "";
    replace(
      root,
      h(
        "form",
        { class: "panel form-grid", "aria-labelledby": "join-title", onsubmit: join },
        h("h2", { id: "join-title" }, t("join.title")),
        game && h("p", {}, t("lobby.summary", { names: players, target: game.target_score, open: open.length })),
        wanted !== null && game && !open.some((seat) => seat.seat === wanted) && h("p", { class: "message error", role: "alert" }, t("join.seatTaken", { n: wanted + 1 }), " ", h("a", { href: `#/game/${encodeURIComponent(gameId)}`, "data-key": "watch" }, t("lobby.watch"))),
        state.error ? problemNotice(state.error) : null,
        open.length > 0 && [
          h("div", {}, h("label", { for: name.id }, t("lobby.name")), name),
          h("div", {}, h("label", { for: age.id }, t("lobby.age")), age),
          h("div", {}, h("label", { for: seatSelect.id }, t("lobby.seat", { n: "" }).trim()), seatSelect),
          h(
            "div",
            { class: "actions" },
            h("button", { type: "submit", class: "primary" }, t("join.button", { n: (chosen ?? 0) + 1 })),
            loadPlayer() && h("button", { type: "button", id: "join-as-player", onclick: joinAsPlayer }, t("join.asPlayer", { n: (chosen ?? 0) + 1 })),
          ),
        ],
        h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))),
      ),
    );
  }

  return stopLanguage;
}
