// Rematch offers on a finished table (contract 1.3): Rematch offers one, taking only this seat; the other
// seats see "Ana wants a rematch: Accept / Decline"; the asker sees whom the offer waits for; a cancelled
// offer says why, and Rematch makes a new one. A player's seat hears of new offers on the player's own
// feed (`rematch_offered`), an anonymous seat by long-polling the finished game (`rematch_created`); a
// waiting offer's own feed is long-polled for its seats being taken, its start (then this page opens it)
// and its cancellation.

import * as api from "./api.js";
import { h } from "./dom.js";
import { followPlayer } from "./events.js";
import { language, t } from "./i18n.js";
import { seatName } from "./names.js";
import { problemNotice } from "./notice.js";
import { playerSeat } from "./player.js";
import { loadSeat, saveSeat } from "./store.js";

/** @typedef {import("./types.js").Game} Game */

/** The seconds a long poll waits for an event before it answers with none. */
const WAIT_SECONDS = 25;
/** The pause after a failed long poll (the network, a restart) before the next one. */
const RETRY_MS = 3000;

/** A seat of the offer is taken: its person asked (or a bot sits there). @param {Game["seats"][number]} seat */
export const hasTaken = (seat) => !seat.open && !(seat.reserved_for && !seat.player);

/** Names as a list in the current language: "Bo and Cy". @param {string[]} names */
const listOf = (names) => new Intl.ListFormat(language(), { type: "conjunction" }).format(names);

/**
 * The offer panel of finished game `gameId` for this seat.
 * @param {string} gameId
 * @param {{render: () => void, asSeat: (action: (held: {seat: number, token: string}) => Promise<void>) => void}} hooks
 */
export function rematchOffer(gameId, { render, asSeat }) {
  const state = {
    /** @type {Game|null} the newest offer (or the game it became) */ offer: null,
    /** @type {string|null} why the offer was cancelled: "declined", "expired" */ reason: null,
    /** @type {unknown} */ error: null,
    busy: false,
    watching: false,
  };
  let stopped = false;
  let stopFeed = () => {};
  /** Wakes the watch while it waits on the player's feed. */
  let wake = () => {};

  /**
   * Hear of offers on the player's own feed (their seat here is the signed-in player's): a new offer of
   * this game, and an offer of it cancelled or started. The watch falls back to the long poll if the feed ends.
   * @param {Game} finished @param {number} seat @returns {boolean} whether the feed is followed
   */
  function followOffers(finished, seat) {
    const held = playerSeat(finished);
    if (held?.seat !== seat) return false;
    stopFeed = followPlayer(held.token, {
      onEvent: (event) => {
        const offered = event.type === "rematch_offered" && "rematch" in event && event.game === gameId;
        const answered = (event.type === "game_cancelled" || event.type === "game_started") && "game" in event && event.game === state.offer?.id;
        const id = offered && "rematch" in event ? event.rematch : answered ? state.offer?.id : null;
        if (id) void load(id).then(wake, wake);
      },
      onStatus: (status) => {
        if (status === "ended") (followed = false), wake();
      },
    });
    return true;
  }
  let followed = false;

  /** Follow new offers (the player's feed, else the finished game's), and a waiting offer's answers, until stopped. */
  async function watch(/** @type {Game} */ finished, /** @type {number} */ seat) {
    if (state.watching) return;
    state.watching = true;
    let after = 0;
    /** Where the long poll of the offer's feed goes on: the last id read of that offer's feed (ids are per game). */
    let offerAt = { id: /** @type {string|null} */ (null), after: 0 };
    followed = followOffers(finished, seat);
    if (finished.rematch) await load(finished.rematch).catch(() => {});
    while (!stopped) {
      try {
        if (state.offer?.status === "waiting_for_players") {
          if (offerAt.id !== state.offer.id) offerAt = { id: state.offer.id, after: 0 }; // another offer: its feed from its start
          const page = await api.gameEvents(state.offer.id, offerAt.after, WAIT_SECONDS);
          if (stopped) return;
          offerAt.after = page.last_id ?? offerAt.after;
          for (const event of page.items) seen(event);
        } else if (followed) {
          await new Promise((resolve) => (wake = () => resolve(undefined)));
        } else {
          const page = await api.gameEvents(gameId, after, WAIT_SECONDS);
          if (stopped) return;
          after = page.last_id ?? after;
          const created = page.items.filter((event) => event.type === "rematch_created").at(-1);
          if (created && "rematch" in created && created.rematch !== state.offer?.id) await load(created.rematch);
        }
      } catch (error) {
        if (error instanceof api.ApiProblem && error.code === "unknown_event_id") {
          // a feed behind what was read of it (a database restored): each read from its start
          after = 0;
          offerAt = { id: null, after: 0 };
        } else {
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        }
      }
    }
  }

  /** An event of the offer's feed: its state, and why it ended if it was cancelled. @param {import("./types.js").EventPage["items"][number]} event */
  function seen(event) {
    state.offer = event.game;
    if (event.type === "game_cancelled" && "reason" in event) state.reason = event.reason;
    opened();
    render();
  }

  /** @param {string} id */
  async function load(id) {
    state.offer = await api.getGame(id);
    state.reason = null;
    if (state.offer.status === "cancelled") {
      const cancelled = (await api.gameEvents(id, 0, 0)).items.find((event) => event.type === "game_cancelled");
      state.reason = cancelled && "reason" in cancelled ? cancelled.reason : null;
    }
    opened();
    render();
  }

  /**
   * The offer started with this seat in it: open it in this page, once this browser holds the seat there (its
   * token saved, or the signed-in player's key acts for it). The start can be heard before the answer to this
   * seat's own Accept, which brings the token: opened before that, the table would be a spectator's.
   */
  function opened() {
    const offer = state.offer;
    const seat = mySeat();
    if (!offer || seat === null || offer.status === "waiting_for_players" || offer.status === "cancelled") return;
    const mine = offer.seats[seat];
    if (!hasTaken(mine) || mine.bot !== null) return;
    if (loadSeat(offer.id) !== null || playerSeat(offer)?.seat === seat) location.hash = `#/game/${encodeURIComponent(offer.id)}`;
  }

  /** @type {() => number|null} */
  let mySeat = () => null;

  /** Ask: offer a rematch, or accept the one offered. */
  const ask = () =>
    asSeat(async (held) => {
      const answer = await api.rematch(gameId, held.token);
      if (answer.token) saveSeat(answer.game.id, { seat: answer.seat, token: answer.token }); // a player's seat has none: their key acts
      state.offer = answer.game;
      state.reason = null;
      if (answer.game.status === "waiting_for_players") return;
      location.hash = `#/game/${encodeURIComponent(answer.game.id)}`;
    });

  /** Decline the offer (or withdraw this seat's own): it is cancelled for everyone. */
  const decline = () =>
    asSeat(async (held) => {
      await api.declineRematch(gameId, held.token);
      if (state.offer) await load(state.offer.id);
    });

  /**
   * The panel for `seat` (null: a spectator, who sees nothing of offers).
   * @param {Game} finished
   * @param {number|null} seat
   * @param {boolean} busy
   */
  function view(finished, seat, busy) {
    mySeat = () => seat;
    if (seat === null) return null;
    void watch(finished, seat);
    const offer = state.offer;
    const button = (key, text, onclick, primary = false) =>
      h("button", { type: "button", class: primary ? "primary" : "", "data-key": key, disabled: busy, onclick }, text);
    const rematchButton = button("rematch", t("table.rematch"), ask, true);
    if (!offer || offer.status === "cancelled") {
      const why = offer && state.reason ? h("p", { id: "rematch-cancelled", role: "status" }, t(`rematch.${state.reason === "declined" ? "declined" : "expired"}`)) : null;
      return h("div", { class: "rematch-offer" }, why, h("p", { class: "actions" }, rematchButton));
    }
    if (offer.status !== "waiting_for_players") {
      return h("p", { class: "actions rematch-offer" }, h("a", { class: "button primary", href: `#/game/${encodeURIComponent(offer.id)}`, "data-key": "open-rematch" }, t("table.rematchJoin")));
    }
    const people = offer.seats.filter((each) => each.bot === null);
    const askers = people.filter((each) => hasTaken(each) && each.seat !== seat).map((each) => seatName(each));
    const waiting = people.filter((each) => !hasTaken(each) && each.seat !== seat).map((each) => seatName(each));
    if (hasTaken(offer.seats[seat])) {
      return h(
        "div",
        { class: "rematch-offer", id: "rematch-waiting" },
        h("p", { role: "status" }, t("rematch.waiting", { names: listOf(waiting) })),
        h("p", { class: "actions" }, button("withdraw", t("rematch.withdraw"), decline)),
      );
    }
    const asked = askers.length === 1 ? t("rematch.offerOne", { name: askers[0] }) : t("rematch.offerMany", { names: listOf(askers) });
    return h(
      "div",
      { class: "rematch-offer", id: "rematch-offered", role: "group", "aria-labelledby": "rematch-offered-text" },
      h("p", { id: "rematch-offered-text" }, asked),
      h("p", { class: "actions" }, button("accept", t("rematch.accept"), ask, true), " ", button("decline", t("rematch.decline"), decline)),
      state.error ? problemNotice(state.error) : null,
    );
  }

  return { view, stop: () => ((stopped = true), stopFeed(), wake()) };
}
