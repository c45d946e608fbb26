// The table of one game: follows its event stream, draws it, and sends this seat's deal, plays, hint and leave.

import * as api from "./api.js";
import { followGame } from "./events.js";
import { checkHand, fairnessView } from "./fairness.js";
import { handView } from "./hand.js";
import { h, replace } from "./dom.js";
import { cardName, onLanguageChange, t } from "./i18n.js";
import { inviteView } from "./invite.js";
import { checkRecord, recordCheckText } from "./record-check.js";
import { seatName } from "./names.js";
import { infoNotice, problemNotice } from "./notice.js";
import { forgetSeat, loadDealt, loadSeat, saveDealt } from "./store.js";
import { cycleView, scoresView, seatsView, statusText, trickView, winnerView } from "./table-view.js";

/** @typedef {import("./types.js").Game} Game */
/** @typedef {import("./types.js").FeedEvent} FeedEvent */
/** @typedef {import("./types.js").Hand} Hand */

const LOG_LENGTH = 8;

/**
 * Show game `gameId` in `root` until the returned function is called.
 * @param {HTMLElement} root
 * @param {string} gameId
 * @returns {() => void} unmount
 */
export function mountTable(root, gameId) {
  let credential = loadSeat(gameId);
  const state = {
    /** @type {Game|null} */ game: null,
    /** @type {{hand_number: number, cards: import("./types.js").CardCode[]}|null} */ hand: null,
    /** @type {import("./types.js").Hint|null} */ hint: null,
    /** @type {unknown} */ error: null,
    /** @type {"connecting"|"live"|"reconnecting"|"ended"} */ live: "connecting",
    confirmLeave: false,
    left: false,
    /** @type {string[]} */ log: [],
    /** @type {Map<number, import("./fairness.js").Check>} */ checks: new Map(),
    /** @type {"checking"|import("./record-check.js").RecordCheck|null} */ recordCheck: null,
  };
  const announcer = h("p", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  const view = h("div", { class: "table-view" });
  replace(root, announcer, view);
  let handRequest = null;
  let stopEvents = follow();
  const stopLanguage = onLanguageChange(render);
  load();

  const mine = () => credential?.seat ?? null;
  const name = (seat) => (state.game ? seatName(state.game.seats[seat], mine()) : String(seat + 1));

  function follow() {
    return followGame(gameId, {
      token: credential?.token,
      onEvent,
      onStatus: (live, problem) => {
        state.live = live;
        if (problem) state.error = problem;
        render();
      },
    });
  }

  /** A first paint without waiting for the stream; from then on the events keep it current. */
  async function load() {
    try {
      acceptGame(await api.getGame(gameId));
    } catch (error) {
      state.error = error;
    }
    render();
  }

  /** Take a newer public state; an older one (an event behind a play's own answer) is ignored. @param {Game} game */
  function acceptGame(game) {
    if (!state.game || game.version >= state.game.version) state.game = game;
    syncHand();
  }

  /** @param {Hand} hand */
  function acceptHand(hand) {
    state.hand = { hand_number: hand.hand_number, cards: [...hand.cards] };
    if (hand.cards.length === 16) saveDealt(gameId, hand.hand_number, hand.cards);
  }

  /** Read this seat's cards when a hand is being played that this browser has not seen yet. */
  function syncHand() {
    const game = state.game;
    if (!credential || !game || game.status !== "playing" || state.hand?.hand_number === game.hand_number || handRequest) return;
    handRequest = api
      .getHand(gameId, credential.token)
      .then((hand) => (!state.hand || hand.hand_number >= state.hand.hand_number) && acceptHand(hand))
      .catch((error) => (state.error = error))
      .finally(() => ((handRequest = null), render()));
  }

  function removeCard(card) {
    if (state.hand) state.hand.cards = state.hand.cards.filter((code) => code !== card);
  }

  function note(text) {
    state.log = [text, ...state.log].slice(0, LOG_LENGTH);
    announcer.textContent = text;
  }

  /** @param {FeedEvent} event */
  function onEvent(event) {
    const privateHand = event.type === "hand" ? event : event.type === "game" ? event.hand : null;
    if (privateHand && privateHand.seat === mine()) acceptHand(privateHand);
    acceptGame(event.game);
    switch (event.type) {
      case "seat_taken":
        note(t("log.seatTaken", { name: event.name ?? name(event.seat), n: event.seat + 1 }));
        break;
      case "seat_left":
        note(t("log.seatLeft", { n: event.seat + 1 }));
        break;
      case "hand_dealt":
        state.hint = null;
        note(t("log.dealt", { name: name(event.dealer), n: event.hand_number }));
        break;
      case "card_played":
        if (event.seat === mine()) removeCard(event.card);
        state.hint = null;
        note(t("log.played", { name: name(event.seat), card: cardName(event.card) }));
        break;
      case "trick_won":
        note(t("log.trickWon", { name: name(event.trick.winner), points: event.trick.points ?? 0 }));
        break;
      case "hand_ended":
        note(t("log.handEnded", { n: event.hand_number }));
        verify(event.hand_number, event.seed);
        break;
      case "game_finished":
        note(t("log.gameFinished", { name: name(event.winner) }));
        if (state.game && !state.checks.has(state.game.hand_number)) verify(state.game.hand_number, null);
        break;
      default:
        break;
    }
    render();
  }

  async function verify(hand, seed) {
    if (!hand || state.checks.get(hand)?.state === "verified") return;
    state.checks.set(hand, { hand, state: "checking" });
    render();
    try {
      state.checks.set(hand, await checkHand({ gameId, hand, seat: mine(), dealt: loadDealt(gameId, hand), seed }));
    } catch {
      state.checks.set(hand, { hand, state: "failed", reason: "missing" });
    }
    render();
  }

  /** Save the game's record as served, as `coins-<id>.json` (a Blob behind an <a download>: no inline script). */
  async function downloadRecord() {
    state.error = null;
    try {
      const { text } = await api.getRecord(gameId);
      const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      const link = h("a", { href: url, download: `coins-${gameId}.json`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      state.error = error;
      render();
    }
  }

  /** Download the record and check all of it here, as coins-verify would. */
  async function checkWholeRecord() {
    state.error = null;
    state.recordCheck = "checking";
    render();
    try {
      state.recordCheck = await checkRecord((await api.getRecord(gameId)).record);
    } catch (error) {
      state.recordCheck = null;
      state.error = error;
    }
    render();
  }

  /** Run one of this seat's actions; its answer's game is shown at once, the events follow. */
  async function act(request) {
    state.error = null;
    try {
      const answer = await request();
      if (answer?.game) acceptGame(answer.game);
      else if (answer?.id && answer.seats) acceptGame(answer);
    } catch (error) {
      state.error = error;
    }
    render();
  }

  /**
   * One of this seat's actions, run only while this browser holds the seat.
   * @param {(held: import("./types.js").Credential) => Promise<unknown>} request
   */
  function asSeat(request) {
    const held = credential;
    if (held) act(() => request(held));
  }

  const deal = () => asSeat((held) => api.dealHand(gameId, held.token));
  /** @param {import("./types.js").CardCode} card */
  const play = (card) =>
    asSeat(async (held) => {
      const answer = await api.playCard(gameId, held.token, card);
      removeCard(card);
      return answer;
    });
  const hint = () =>
    asSeat(async (held) => {
      state.hint = await api.getHint(gameId, held.token);
    });
  const leave = () =>
    asSeat(async (held) => {
      // From now on nothing reads as this seat: the events of the bot taking over may arrive before
      // the answer, and a read of the hand with the token just given up would be refused (401).
      credential = null;
      let game;
      try {
        game = await api.leaveGame(gameId, held.token, held.seat);
      } catch (error) {
        credential = held;
        throw error;
      }
      forgetSeat(gameId);
      state.hand = null;
      state.left = true;
      state.confirmLeave = false;
      stopEvents();
      stopEvents = follow(); // on as a spectator
      return game;
    });

  function render() {
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.key : undefined;
    const cardIndex = state.hand?.cards.findIndex((card) => `card:${card}` === focused) ?? -1;
    replace(view, tableView());
    restoreFocus(focused, cardIndex);
  }

  /** Keep the keyboard where it was: the same control, or the card that took a played card's place. */
  function restoreFocus(key, cardIndex) {
    if (!key) return;
    let target = view.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!target && key.startsWith("card:")) {
      const cards = view.querySelectorAll(".card-button");
      target = cards[Math.min(Math.max(cardIndex, 0), cards.length - 1)] ?? null;
    }
    if (target instanceof HTMLElement) target.focus();
  }

  function tableView() {
    const game = state.game;
    if (!game) return h("div", {}, state.error ? problemNotice(state.error) : h("p", {}, "…"));
    const seat = mine();
    return h(
      "div",
      { class: "table", "data-status": game.status, "data-version": game.version },
      h(
        "div",
        { class: "table-main" },
        state.error ? problemNotice(state.error) : null,
        state.left && infoNotice(t("table.left")),
        seat === null && !state.left && infoNotice(t("table.spectator")),
        feltView(game, seat),
        seat !== null && game.status !== "finished" && handPanel(game, seat),
      ),
      sidePanel(game, seat),
    );
  }

  /** The public table: status, winner, seats, the trick, the last trick, the suit cycle. */
  function feltView(game, seat) {
    const hand = game.hand_number ? `${t("table.hand", { n: game.hand_number })} · ` : "";
    const last = game.last_trick;
    return h(
      "section",
      { class: "felt", "aria-labelledby": "status-line" },
      h("p", { class: "status-line", id: "status-line" }, hand + statusText(game, seat)),
      game.status === "finished" && game.winner !== null && winnerView(game, seat),
      seatsView(game, seat),
      h(
        "div",
        { class: "trick-area" },
        h("div", {}, h("h2", {}, t("table.trick")), trickView(game, game.trick, seat, "current-trick")),
        h(
          "div",
          {},
          h("h2", {}, t("table.lastTrick")),
          trickView(game, last, seat, "last-trick"),
          last?.winner != null && h("p", {}, t("table.lastTrickWon", { name: name(last.winner), points: last.points ?? 0 })),
        ),
      ),
      cycleView(),
    );
  }

  /** This seat's controls and cards. */
  function handPanel(game, seat) {
    const yourTurn = game.turn === seat;
    const held = state.hand;
    const cards = game.status === "playing" && held && held.hand_number === game.hand_number ? held.cards : null;
    return h(
      "section",
      { class: `panel your-hand${yourTurn ? " your-turn" : ""}`, "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title" }, t("table.yourCards")),
      controls(game, seat),
      state.hint && infoNotice(t("table.hintSays", { card: cardName(state.hint.card), reason: state.hint.reason })),
      cards && handView({ cards, playable: yourTurn, hinted: state.hint?.card ?? null, onPlay: play, label: t("table.yourCards") }),
    );
  }

  /** Scores, invitations, the fair-deal panel and the log. */
  function sidePanel(game, seat) {
    return h(
      "aside",
      { class: "table-side" },
      h("section", { class: "panel" }, h("h2", {}, t("table.scores")), scoresView(game, seat)),
      game.status === "waiting_for_players" && inviteView(game),
      fairnessView(game.status === "playing" ? game.commitment : null, [...state.checks.values()].reverse()),
      game.hand_number > 0 && recordPanel(),
      h(
        "section",
        { class: "panel" },
        h("h2", {}, t("table.log")),
        h("p", { class: "live", "data-live": state.live }, t(`live.${state.live}`)),
        h("ol", { class: "log" }, state.log.map((line) => h("li", {}, line))),
      ),
      h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))),
    );
  }

  /** The game record: download it, or check it whole (every hand over so far, and the outcome). */
  function recordPanel() {
    const check = state.recordCheck;
    let result = null;
    if (check === "checking") result = h("p", { id: "record-check" }, t("record.checking"));
    else if (check?.ok) result = h("p", { id: "record-check", class: "verified", "data-verified": "true" }, recordCheckText(check));
    else if (check) result = h("p", { id: "record-check", class: "warning", role: "alert", "data-verified": "false" }, recordCheckText(check));
    return h(
      "section",
      { class: "panel game-record", "aria-labelledby": "record-title" },
      h("h2", { id: "record-title" }, t("record.title")),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", "data-key": "record-download", onclick: downloadRecord }, t("record.download")),
        h("button", { type: "button", "data-key": "record-check", disabled: check === "checking", onclick: checkWholeRecord }, t("record.check")),
      ),
      result,
    );
  }

  function controls(game, seat) {
    const yourTurn = game.turn === seat;
    return h(
      "div",
      { class: "actions" },
      game.status === "waiting_for_deal" && yourTurn && h("button", { type: "button", class: "primary", "data-key": "deal", onclick: deal }, t("table.deal")),
      game.status === "playing" && h("button", { type: "button", "data-key": "hint", disabled: !yourTurn, onclick: hint }, t("table.hint")),
      state.confirmLeave
        ? [
            h("span", {}, t("table.leaveConfirm")),
            h("button", { type: "button", class: "primary", "data-key": "leave-yes", onclick: leave }, t("table.leave")),
            h("button", { type: "button", "data-key": "leave-no", onclick: () => ((state.confirmLeave = false), render()) }, t("table.stay")),
          ]
        : h("button", { type: "button", "data-key": "leave", onclick: () => ((state.confirmLeave = true), render()) }, t("table.leave")),
    );
  }

  return () => {
    stopEvents();
    stopLanguage();
  };
}
