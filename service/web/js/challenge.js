// Challenges (contract 1.3): challenge a player to a game from their profile (clock, target, rated), answer
// the challenges made to you in the lobby (Accept takes the seat reserved for you; Decline cancels the game)
// and the rematches offered to you (Accept and Decline answer them on the finished game),
// and choose whether others may challenge you at all.

import * as api from "./api.js";
import { h, oneAtATime, replace } from "./dom.js";
import { durationText, language, t } from "./i18n.js";
import { seatName } from "./names.js";
import { problemNotice } from "./notice.js";
import { hasTaken } from "./rematch-offer.js";
import { listSeats, loadPlayer, loadSeat, saveSeat } from "./store.js";

const THIRD_SEATS = ["bot:basic", "bot:expert", "bot:random", "open"];
/** The clocks a challenge offers, in seconds a turn: live games to correspondence, up to the contract's 14 days. */
export const CHALLENGE_CLOCKS = [60, 300, 3600, 86_400, 3 * 86_400, 7 * 86_400, 14 * 86_400];
/** How many of this browser's newest anonymous seats are looked at for rematch offers. */
const ANONYMOUS_GAMES = 5;

/**
 * "Challenge to a game" on another player's profile: the game is made with your seat, theirs reserved
 * for them, and a third (a bot, or open); you wait at the table for their answer.
 * @param {import("./types.js").Player} target
 * @returns {HTMLElement}
 */
export function challengeForm(target) {
  const element = h("form", { class: "panel form-grid", id: "challenge-form", "aria-labelledby": "challenge-title" });
  if (target.challenges === "nobody") {
    replace(element, h("h2", { id: "challenge-title" }, t("challenge.title")), h("p", { id: "challenge-refused" }, t("challenge.refused", { name: target.name })));
    return element;
  }
  const fields = {
    clock: h("select", { id: "challenge-clock", name: "clock" }, CHALLENGE_CLOCKS.map((seconds) => h("option", { value: seconds }, durationText(seconds)))),
    target: h("input", { id: "challenge-target", name: "target", type: "number", min: 1, max: 100, value: "15", required: true }),
    rated: h("input", { id: "challenge-rated", name: "rated", type: "checkbox" }),
    third: h("select", { id: "challenge-third", name: "third" }, THIRD_SEATS.map((choice) => h("option", { value: choice }, thirdLabel(choice)))),
  };
  const message = h("div");
  const label = (input, text) => h("label", { for: input.id }, text);
  element.addEventListener("submit", oneAtATime(async () => {
    const held = loadPlayer();
    if (!held) return;
    const third = fields.third.value === "open" ? null : { bot: fields.third.value.slice(4) };
    const body = {
      target_score: Number(fields.target.value),
      turn_timeout_seconds: Number(fields.clock.value),
      rated: fields.rated.checked,
      seats: [{ player: "me" }, { player: target.id }, third],
    };
    replace(message);
    try {
      const game = await api.createGame(body, held.key);
      location.hash = `#/game/${encodeURIComponent(game.id)}`;
    } catch (error) {
      replace(message, problemNotice(error));
    }
  }));
  replace(
    element,
    h("h2", { id: "challenge-title" }, t("challenge.title")),
    h("p", {}, t("challenge.intro", { name: target.name })),
    h("div", {}, label(fields.clock, t("challenge.clock")), fields.clock),
    h("div", {}, label(fields.target, t("lobby.target")), fields.target),
    h("div", {}, label(fields.third, t("challenge.third")), fields.third),
    h("div", { class: "check" }, fields.rated, label(fields.rated, t("quick.rated"))),
    message,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "challenge-send" }, t("challenge.send"))),
  );
  return element;
}

/** @param {string} choice */
function thirdLabel(choice) {
  return choice === "open" ? t("lobby.seatOpen") : t("lobby.seatBot", { strength: t(`strength.${choice.slice(4)}`) });
}

/**
 * Your own setting: whether other players may challenge you.
 * @param {import("./types.js").Player} me
 * @param {string} key
 * @param {(player: import("./types.js").Player) => void} changed
 */
export function challengeSetting(me, key, changed) {
  const box = h("input", { id: "challenge-take", type: "checkbox", checked: me.challenges !== "nobody" });
  const message = h("div");
  box.addEventListener("change", async () => {
    try {
      changed(await api.setChallenges(key, box.checked ? "everyone" : "nobody"));
    } catch (error) {
      replace(message, problemNotice(error));
    }
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "challenge-settings" },
    h("h2", { id: "challenge-settings" }, t("challenge.settings")),
    h("div", { class: "check" }, box, h("label", { for: box.id }, t("challenge.takeThem"))),
    message,
  );
}

/**
 * The lobby's list of the challenges made to the signed-in player, and of the rematch offers waiting for
 * them or for this browser's anonymous seats, each with Accept / Decline.
 * @param {() => void} changed called after an answer (the lists refresh)
 * @returns {{element: HTMLElement, refresh: () => Promise<void>}}
 */
export function incomingChallenges(changed) {
  const element = h("div");
  /** @type {{games: import("./types.js").Game[], error: unknown}} */
  const state = { games: [], error: null };

  /** The rematch offers waiting for this browser's anonymous seats (of its newest games), each with the finished game's seat. */
  const anonymous = new Map();

  async function anonymousOffers() {
    const offers = await Promise.all(
      listSeats()
        .slice(-ANONYMOUS_GAMES)
        .map(async (finishedId) => {
          const finished = await api.getGame(finishedId).catch(() => null);
          const credential = loadSeat(finishedId);
          if (!finished?.rematch || finished.status !== "finished" || !credential?.token) return null;
          const offer = await api.getGame(finished.rematch).catch(() => null);
          const mine = offer?.seats[credential.seat];
          if (!offer || offer.status !== "waiting_for_players" || !mine || hasTaken(mine)) return null;
          anonymous.set(offer.id, { finished: finishedId, token: credential.token });
          return offer;
        }),
    );
    return /** @type {import("./types.js").Game[]} */ (offers.filter(Boolean));
  }

  async function refresh() {
    const held = loadPlayer();
    try {
      anonymous.clear();
      const waiting = held ? (await api.listMyWaitingGames(held.key)).items.filter((item) => item.reserved) : [];
      const reserved = /** @type {import("./types.js").Game[]} */ ((await Promise.all(waiting.map((item) => api.getGame(item.id).catch(() => null)))).filter(Boolean));
      state.games = [...reserved, ...(await anonymousOffers())];
      state.error = null;
    } catch (error) {
      // A key refused (replaced elsewhere) is the player panel's to say, once: nothing shows here.
      const refused = error instanceof api.ApiProblem && error.code === "invalid_key";
      state.games = refused ? [] : state.games;
      state.error = refused ? null : error;
    }
    render();
  }

  /** The games whose answer is in flight: their Accept and Decline are disabled, and a second click does nothing. */
  const answering = new Set();

  /** @param {string} id @param {boolean} accept */
  async function answer(id, accept) {
    const seat = anonymous.get(id);
    const held = seat ? { key: seat.token } : loadPlayer(); // an anonymous seat answers with its token of the finished game
    if (!held || answering.has(id)) return;
    answering.add(id);
    render();
    const finished = state.games.find((game) => game.id === id)?.rematch_of;
    try {
      if (finished) {
        // A rematch offer is answered on the finished game: accepting takes this seat; the last one deals it.
        if (!accept) await api.declineRematch(finished, held.key);
        const taken = accept ? await api.rematch(finished, held.key) : null;
        if (taken?.token) saveSeat(taken.game.id, { seat: taken.seat, token: taken.token });
        if (taken) location.hash = `#/game/${encodeURIComponent(taken.game.status === "waiting_for_players" ? finished : taken.game.id)}`;
        if (taken) return;
        state.games = state.games.filter((game) => game.id !== id);
      } else if (accept) {
        await api.joinGame(id, { player: "me" }, held.key);
        location.hash = `#/game/${encodeURIComponent(id)}`;
        return;
      } else {
        await api.declineChallenge(id, held.key);
        state.games = state.games.filter((game) => game.id !== id);
      }
    } catch (error) {
      state.error = error;
    } finally {
      answering.delete(id);
    }
    render();
    changed();
  }

  /** @param {import("./types.js").Game} game */
  function item(game) {
    const challenger = game.seats.find((seat) => seat.player !== null && seat.bot === null && seat.reserved_for === null);
    const askers = game.seats.filter((seat) => seat.bot === null && hasTaken(seat)).map((each) => seatName(each));
    // Every seat is named: the challenger, and whoever (or whatever) sits in the third seat.
    const others = game.seats.filter((seat) => seat !== challenger && !(seat.reserved_for !== null && !hasTaken(seat))).map((seat) => (seat.open ? t("challenge.openSeat") : seatName(seat)));
    const clock = game.turn_timeout_seconds ? t("challenge.perTurn", { time: durationText(game.turn_timeout_seconds) }) : t("challenge.noClock");
    const text = game.rematch_of
      ? t("lobby.rematchOffer", { names: askers.join(", ") || "?" })
      : t("challenge.from", { name: challenger ? seatName(challenger) : "?", others: new Intl.ListFormat(language(), { type: "conjunction" }).format(others), clock, target: game.target_score });
    // Each Accept and Decline is described by its challenge: with several, a screen reader's list of buttons tells them apart.
    const described = `challenge-text-${game.id}`;
    return h(
      "li",
      { class: "panel", "data-game": game.id, "data-challenge": game.rematch_of ? "rematch" : "incoming" },
      h("span", { id: described }, text, game.rated && [" ", h("span", { class: "badge", "data-rated": "true" }, t("quick.rated"))]),
      h(
        "span",
        { class: "actions answer" },
        h("button", { type: "button", class: "primary", "data-key": "accept", "aria-describedby": described, disabled: answering.has(game.id), onclick: () => answer(game.id, true) }, t("challenge.accept")),
        h("button", { type: "button", "data-key": "decline", "aria-describedby": described, disabled: answering.has(game.id), onclick: () => answer(game.id, false) }, t("challenge.decline")),
      ),
    );
  }

  function render() {
    replace(
      element,
      (state.games.length > 0 || state.error !== null) &&
        h(
          "section",
          { class: "panel", id: "challenges", "aria-labelledby": "challenges-title" },
          h("h2", { id: "challenges-title" }, t("challenge.incoming")),
          state.error ? problemNotice(state.error) : null,
          h("ul", { class: "open-games" }, state.games.map(item)),
        ),
    );
  }
  return { element, refresh };
}
