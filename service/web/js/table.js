// The table of one game: follows its event stream, draws it, and sends this seat's deal, plays, hint and leave.

import * as api from "./api.js";
import { followGame } from "./events.js";
import { checkHand, fairnessView } from "./fairness.js";
import { handView } from "./hand.js";
import { h, replace, restoreFocus } from "./dom.js";
import { cardName, onLanguageChange, t } from "./i18n.js";
import { inviteView } from "./invite.js";
import { recordPanel } from "./record-panel.js";
import { rematchOffer } from "./rematch-offer.js";
import { reviewPanel } from "./review.js";
import { seatName } from "./names.js";
import { infoNotice, problemNotice, seededNotice } from "./notice.js";
import { isMissingGame, missingGameView } from "./missing.js";
import { forgetSeat, loadDealt, loadPlayer, loadSeat, saveDealt, saveSeat } from "./store.js";
import { turnNotice } from "./notify.js";
import { logPanel, scoresView, seatControls, settingsPanel, summaryView } from "./table-side.js";
import { cycleView, heldTrickLine, ratingNote, ratingsPending, seatsView, statusText, trickSlots, trickView, winnerView } from "./table-view.js";
import { GameHistory, moveOfAction, moveOfEvent, replayHands } from "./history.js";
import { pacer } from "./pacing.js";
import { hintReason } from "./hint-reason.js";
import { turnClock } from "./clock.js";
import { setTurnSound, turnAlert, turnSoundOn } from "./sound.js";
import { playerSeat } from "./player.js";
import { forgetRatings, onRatings } from "./ratings.js";
import { cardMotion } from "./motion.js";

/** @typedef {import("./types.js").Game} Game */
/** @typedef {import("./types.js").FeedEvent} FeedEvent */
/** @typedef {import("./types.js").Hand} Hand */

/** How long a play's answer waits for its events before it is shown from the answer itself. */
const EVENTS_GRACE_MS = 5000;
/** How often, and how many times, a finished rated game is read again until its rating changes show. */
const RATINGS_POLL_MS = 1000;
const RATINGS_POLLS = 20;

/** A failure of the network itself (every try of a request), not an answer of the service. @param {unknown} error */
const isNetworkError = (error) => error instanceof api.ApiProblem && error.code === "network_error";
/** A play refused for the game's state (the turn, the hand, the game over): the play lost a race, if the game moved on. @param {unknown} error */
const isRaceLost = (error) => error instanceof api.ApiProblem && ["not_your_turn", "no_hand_in_progress", "game_finished"].includes(error.code);
/** A deal refused for the game's state (a hand dealt already, the game over): the deal lost a race, if the game moved on. @param {unknown} error */
const isDealRaceLost = (error) => error instanceof api.ApiProblem && ["hand_in_progress", "game_finished"].includes(error.code);

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
    /** @type {false|"left"|"lost"} this browser's seat went to a bot: by its Leave here, or lost (to its turn clock,
     *  contract 1.3, or to a Leave on another device: its last move tells which) */
    left: false,
    /** @type {number|null} the seat this page held before it left or lost it: the log still says "you" of its past */
    formerSeat: null,
    busy: false,
    /** @type {Game|null} a play's answer, until the events have shown the game that far */ awaited: null,
    /** @type {import("./types.js").Trick|null} a completed trick, held on the table for a moment */ held: null,
    /** @type {number|null} the hand whose summary is shown, until the next deal */ summary: null,
    /** @type {Map<number, import("./fairness.js").Check>} */ checks: new Map(),
    /** @type {{card: import("./types.js").CardCode, key: string}|null} a play the network lost, offered again with its key */ failedPlay: null,
  };
  const announcer = h("p", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  const view = h("div", { class: "table-view", tabindex: "-1" }); // focusable: a focus lost on the way here comes to it
  replace(root, announcer, view);
  let handRequest = null;
  /** @type {{key: string, element: HTMLElement}|null} */
  let handCache = null;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let awaitTimer;
  const history = new GameHistory();
  /** Whether the game's moves so far were read (its actions): a seat lost before the page opened is told why only then. */
  let movesRead = false;
  let streamsStarted = 0; // `game` events shown: each opens a stream started afresh (the first, the table's)
  const paced = pacer({ show, settled: () => ((state.held = null), render()) });
  const clock = turnClock();
  const turnSound = turnAlert();
  const turnNote = turnNotice(gameId);
  const record = recordPanel(gameId, { render, onError: (error) => ((state.error = error), render()) });
  const review = reviewPanel(gameId, { render });
  let stopEvents = () => {};
  let following = false;
  let unmounted = false;
  // The hidden announcer speaks the page's language: after a switch its last line is said again in the new one.
  const stopLanguage = onLanguageChange(() => (announcer.textContent && (announcer.textContent = lines().at(-1) ?? ""), render()));
  const stopRatings = onRatings(render); // a player seat's rating, once read
  forgetRatings(); // every table reads the players' ratings as they stand now
  const motion = cardMotion(view);
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let ratingsTimer;
  let ratingsPolls = 0;
  /** The log's move lines the announcer has said (or that were there when the table opened), and whether its first-dealer line was. */
  const spoken = { lines: 0, firstDealer: false, yourTurn: false };
  /** A control to put the keyboard on at the next render (a dialog opened or closed), by its `data-key`. */
  let focusNext = "";
  start();

  const mine = () => credential?.seat ?? null;
  /** The seat the log speaks of as "you": this page's, or the one it held before leaving or losing it. */
  const logSeat = () => mine() ?? state.formerSeat;
  /**
   * Whether `seat`'s last move before a bot took it was a stand-in's: a seat lost right after is lost to its clock
   * (the last lapse hands it to the bot, which then moves), else to a Leave. @param {number} seat
   * @param {import("./history.js").Move[]} [moves] the moves up to then (by default, all so far)
   */
  const lastMoveTimedOut = (seat, moves = history.moves) => moves.filter((move) => move.seat === seat && move.cause !== "bot").at(-1)?.cause === "timeout";
  const name = (seat) => (state.game ? seatName(state.game.seats[seat], mine()) : String(seat + 1));

  function follow() {
    return followGame(gameId, {
      token: credential?.token,
      onEvent: (event) => {
        clock.heard(event.game); // the turn clock counts from the arrival, however long the pacer holds it
        paced.push(event);
      },
      onStatus: (live, problem) => {
        if (problem?.status === 401 && credential) return recheckSeat(problem);
        // A stream ends by itself only after the game's last event: the table is still showing the events
        // before it at a person's pace, so it stays live until the game shown is over (see the log panel).
        const was = state.live;
        state.live = live === "ended" && !problem ? "live" : live;
        // The notice shown while reconnecting comes with its text, which a screen reader may not read: the announcer says it, and that it is back.
        if (state.live !== was && (state.live === "reconnecting" || was === "reconnecting")) announcer.textContent = t(state.live === "reconnecting" ? "table.reconnecting" : `live.${state.live}`);
        if (problem) state.error = problem;
        else if (live === "live" && isNetworkError(state.error)) state.error = null; // back: the lost connection's error goes
        render();
      },
    });
  }

  /**
   * The stream refused this seat's token: if the game shows the seat gone to a bot, follow it as a spectator;
   * else say why. @param {api.ApiProblem} problem
   */
  async function recheckSeat(problem) {
    try {
      acceptGame(await api.getGame(gameId));
    } catch {
      // said below, as the stream's refusal
    }
    if (credential) ((state.live = "ended"), (state.error = problem));
    render();
  }

  /** A first paint from the game (one that is not there gets its page, and nothing more is asked); then
   *  its events, and its moves so far from its actions (moves already taken from the events are kept). */
  async function start() {
    try {
      const game = await api.getGame(gameId);
      clock.heard(game);
      credential ??= playerSeat(game); // a seat taken for the signed-in player: their key acts for it
      acceptGame(game);
    } catch (error) {
      state.error = error;
    }
    render();
    if (unmounted || isMissingGame(state.error)) return;
    stopEvents = follow();
    following = true;
    try {
      history.load((await api.listActions(gameId)).flatMap((action) => moveOfAction(action) ?? []));
      movesRead = true;
      heard(); // what was played before the table opened is the log's, not news to say
    } catch (error) {
      state.error = error;
    }
    render();
  }

  /** Take a newer public state; an older one (an event behind a play's own answer) is ignored. @param {Game} game */
  function acceptGame(game) {
    if (!state.game || game.version >= state.game.version) state.game = game;
    if (state.awaited && state.game.version >= state.awaited.version) state.awaited = null;
    if (credential && state.game.seats[credential.seat]?.bot) seatLost();
    syncHand();
    awaitRatings();
  }

  /** A finished rated game's rating changes are applied just after its end: read it again until they show. */
  function awaitRatings() {
    if (!state.game || !ratingsPending(state.game) || ratingsTimer !== undefined || ratingsPolls >= RATINGS_POLLS || unmounted) return;
    ratingsTimer = setTimeout(async () => {
      ratingsPolls += 1;
      try {
        const game = await api.getGame(gameId);
        ratingsTimer = undefined;
        acceptGame(game);
      } catch {
        ratingsTimer = undefined; // the next state read tries again
      }
      render();
    }, RATINGS_POLL_MS);
  }

  /**
   * This browser's seat shows a bot, though it did not leave from here: its turn clock ran out (twice in a row,
   * or once in a correspondence game: contract 1.3), or its player left it from another device. The seat's token
   * no longer works (a reload would be refused with it), so the table turns into a spectator's, on the public stream.
   */
  function seatLost() {
    state.formerSeat = credential?.seat ?? state.formerSeat;
    credential = null;
    forgetSeat(gameId);
    Object.assign(state, { hand: null, hint: null, awaited: null, failedPlay: null, confirmLeave: false });
    state.left = "lost"; // why (its clock, or a Leave on another device) is told by its last move, when it is read
    if (state.error instanceof api.ApiProblem && state.error.status === 401) state.error = null; // the token's refusal: now said in words
    if (following) {
      stopEvents();
      stopEvents = follow();
    }
  }

  /** @param {Hand} hand */
  function acceptHand(hand) {
    // Within a hand cards only go: an older copy (a read or an event from before a play) is ignored.
    const held = state.hand;
    if (held && (hand.hand_number < held.hand_number || (hand.hand_number === held.hand_number && hand.cards.length > held.cards.length))) return;
    state.hand = { hand_number: hand.hand_number, cards: [...hand.cards] };
    if (hand.cards.length === 16) saveDealt(gameId, hand.hand_number, hand.cards);
  }

  /** Read this seat's cards when a hand is being played that this browser has not seen yet. */
  function syncHand() {
    const game = state.game;
    if (!credential || !game || game.status !== "playing" || state.hand?.hand_number === game.hand_number || handRequest) return;
    const asked = credential;
    handRequest = api
      .getHand(gameId, asked.token)
      .then((hand) => credential === asked && (!state.hand || hand.hand_number >= state.hand.hand_number) && acceptHand(hand))
      .catch((error) => credential === asked && (state.error = error)) // a seat lost meanwhile: its refusal is no news
      .finally(() => ((handRequest = null), render()));
  }

  function removeCard(card) {
    if (state.hand) state.hand.cards = state.hand.cards.filter((code) => code !== card);
  }

  /** Read the game's actions again: the moves a stream started afresh did not tell of take their places in the log. */
  async function readMovesAgain() {
    try {
      history.load((await api.listActions(gameId)).flatMap((action) => moveOfAction(action) ?? []));
    } catch {
      return; // the log keeps what the events told; the next fresh start reads them again
    }
    if (!unmounted) render();
  }

  /** The seats whose leaving the log told (once each: this page's own Leave is told by its answer or its event). */
  const leavingNoted = new Set();

  /**
   * Log that `seat` went to a bot: lost to its clock (its stand-in's move came last) or left; after `moves` (by
   * default, the moves so far), as event `id` of the feed. @param {number} seat @param {boolean} you
   * @param {import("./history.js").Move[]} [moves] @param {number} [id]
   */
  function noteLeaving(seat, you, moves = history.moves, id = Infinity) {
    if (leavingNoted.has(seat)) return;
    leavingNoted.add(seat);
    const clock = lastMoveTimedOut(seat, moves);
    history.note(t(clock ? (you ? "log.youTimedOut" : "log.seatTimedOut") : you ? "log.youLeft" : "log.seatLeft", { n: seat + 1 }), moves.length, id);
  }

  /**
   * The log's line for an event that is not a move (a seat taken or left, the game cancelled), after `moves`: as the
   * event is shown, or read back from the feed. @param {FeedEvent} event @param {number|null} own the log's "you" then
   * @param {import("./history.js").Move[]} [moves] the moves before it (by default, those so far)
   */
  function noteEvent(event, own, moves = history.moves) {
    if (event.type === "seat_taken") {
      leavingNoted.delete(event.seat); // a seat open again (before the start) may be taken and left anew
      history.note(t("log.seatTaken", { name: event.name ?? name(event.seat), n: event.seat + 1 }), moves.length, event.id);
    } else if (event.type === "seat_left") noteLeaving(event.seat, event.seat === own, moves, event.id);
    else if (event.type === "game_cancelled") history.note(t(event.reason === "expired" ? "log.cancelledExpired" : "log.cancelledDeclined"), moves.length, event.id);
  }

  /** The feed's last event whose line (if it has one) is in the log: shown, or read back. */
  let notedThrough = 0;

  /**
   * A stream starts with the game's state, not the changes that led to it: the log's lines for the events it did not
   * show, after `from` up to its first (`to`), are read back from the game's feed, each at its place among the moves.
   * @param {number} from @param {number} to
   */
  async function readNotes(from, to) {
    /** @type {import("./history.js").Move[]} */
    const moves = []; // the feed's moves so far: where each line goes, and whether a seat's last move was a stand-in's
    const own = logSeat();
    let changed = false;
    try {
      for (let after = 0; after < to; ) {
        const page = await api.gameEvents(gameId, after, 0);
        for (const item of page.items) {
          const event = /** @type {FeedEvent} */ (item); // one of a type this client does not know has no line
          if (event.id > to) break;
          const move = moveOfEvent(event);
          if (move) moves.push(move);
          // A seat this page holds now, left by someone before (the game not started): not "you".
          else if (event.id > from) (noteEvent(event, event.type === "seat_left" && event.seat === mine() ? null : own, moves), (changed = true));
        }
        if (!page.items.length) break;
        after = page.last_id;
      }
    } catch {
      return; // the log goes on without them
    }
    if (changed && !unmounted) render();
  }

  /** Show one event (the pacer calls this at a person's pace). @param {FeedEvent} event */
  function show(event) {
    state.held = null;
    history.add(moveOfEvent(event)); // first: a seat lost with this move is told why by it
    const own = logSeat(); // before the game is taken in: a seat lost there is still "you"
    const privateHand = event.type === "hand" ? event : event.type === "game" ? event.hand : null;
    if (privateHand && privateHand.seat === mine()) acceptHand(privateHand);
    acceptGame(event.game);
    if (state.hint && (event.game.status !== "playing" || event.game.turn !== mine())) state.hint = null; // the turn passed: the hint goes
    if (event.type === "game" && streamsStarted++ > 0) readMovesAgain(); // a stream started afresh (a seat lost, say): what it skipped
    if (event.type === "game" && event.id > notedThrough) readNotes(notedThrough, event.id); // and the lines of what it skipped
    notedThrough = Math.max(notedThrough, event.id);
    // Who won ends the log: told by game_finished, or read in the state of a game opened once it was over.
    if (event.game.status === "finished" && event.game.winner !== null) history.end(t("log.gameFinished", { name: name(event.game.winner) }));
    noteEvent(event, own);
    switch (event.type) {
      case "hand_dealt":
        state.hint = null;
        state.summary = null;
        break;
      case "card_played":
        if (event.seat === mine()) removeCard(event.card);
        if (event.seat === mine() && state.failedPlay?.card === event.card) state.failedPlay = null; // it did reach the service
        state.hint = null;
        if (!event.game.trick?.plays.length && event.game.last_trick?.complete) state.held = event.game.last_trick;
        break;
      case "trick_won":
        state.held = event.trick;
        break;
      case "hand_ended":
        state.summary = event.hand_number;
        verify(event.hand_number, event.seed);
        break;
      case "game_finished":
        forgetRatings(); // the players' ratings change with this game
        if (state.game && !state.checks.has(state.game.hand_number)) verify(state.game.hand_number, null);
        break;
      default:
        break;
    }
    if (event.type !== "game" && event.type !== "hand") announce();
    render();
  }

  /**
   * Say what an event added to the log: every new line (the card that completes a trick, then who won it: not only
   * the last line), and that it is now your turn when it has just become so (the status line and the tab's title,
   * which show it, are not read out). Nothing new (a trick's win already said with its last card): nothing is said again.
   */
  function announce() {
    const fresh = heard();
    const game = state.game;
    const yourTurn = game !== null && !over(game) && mine() !== null && game.turn === mine();
    if (yourTurn && !spoken.yourTurn) fresh.push(statusText(game, mine()));
    spoken.yourTurn = yourTurn;
    if (fresh.length) announcer.textContent = fresh.slice(-4).join(" "); // a reconnect's catch-up: its last lines only
  }

  /** The log's lines not yet heard, now heard. @returns {string[]} */
  function heard() {
    const first = firstDealerLine(state.game, name);
    const moves = history.lines(name, logSeat());
    const fresh = [...(spoken.firstDealer ? [] : first), ...moves.slice(Math.min(spoken.lines, moves.length))];
    spoken.lines = moves.length;
    spoken.firstDealer ||= first.length > 0;
    return fresh;
  }

  /** The log: how the first dealer was chosen (the rules say the server tells a random draw), then the moves. */
  const lines = () => [...firstDealerLine(state.game, name), ...history.lines(name, logSeat())];

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

  /**
   * Run one of this seat's actions: one at a time (the hand is locked while one is in flight);
   * its answer's game is shown at once unless `byEvents` (a play: its events show it, at their pace).
   */
  async function act(request, byEvents = false) {
    state.error = null;
    state.busy = true;
    render();
    try {
      const answer = await request();
      if (answer?.game) clock.heard(answer.game);
      if (byEvents && answer?.game) awaitEvents(answer.game);
      else if (answer?.game) acceptGame(answer.game);
      else if (answer?.id && answer.seats) acceptGame(answer);
    } catch (error) {
      state.error = error;
    }
    state.busy = false;
    render();
  }

  /** After a play the hand stays locked until the events show the game as its answer left it (the bots' replies
   *  come later, as events of their own), so a second click cannot go into a trick not yet seen; without events, the answer after a while. @param {Game} game */
  function awaitEvents(game) {
    if (state.game && state.game.version >= game.version) return; // the events got there first
    state.awaited = game;
    clearTimeout(awaitTimer);
    awaitTimer = setTimeout(() => {
      if (state.awaited) acceptGame(state.awaited);
      render();
    }, EVENTS_GRACE_MS);
  }

  /** One of this seat's actions, run only while this browser holds the seat and no other is in flight. @param {(held: import("./types.js").Credential) => Promise<unknown>} request */
  function asSeat(request, byEvents = false) {
    const held = credential;
    if (held && !state.busy) act(() => request(held), byEvents);
  }

  /** Deal: a deal refused because the hand was dealt meanwhile (on another device of the seat) is what the player wanted, not an error. */
  const deal = () => {
    const seen = state.game?.version ?? 0;
    asSeat(async (held) => {
      try {
        return await api.dealHand(gameId, held.token);
      } catch (error) {
        const moved = isDealRaceLost(error) ? await movedOn(seen) : null;
        if (!moved) throw error;
        return { game: moved }; // its events bring the hand
      }
    });
  };
  /**
   * Play a card: one intent, one Idempotency-Key. A play the network lost (every try failed) is offered
   * again with the same key, so a try that did reach the service is answered, not applied twice.
   * @param {import("./types.js").CardCode} card @param {string} [key]
   */
  const play = (card, key = api.idempotencyKey()) => {
    if (!canPlay() || !state.hand?.cards.includes(card)) return;
    state.failedPlay = null;
    const seen = state.game?.version ?? 0;
    asSeat(async (held) => {
      try {
        const answer = await api.playCard(gameId, held.token, card, key);
        removeCard(card);
        return answer;
      } catch (error) {
        if (isNetworkError(error)) state.failedPlay = { card, key };
        const moved = isRaceLost(error) ? await movedOn(seen) : null;
        if (!moved) throw error;
        history.note(t("log.alreadyPlayed", { card: cardName(card) })); // not the player's mistake: no error
        return { game: moved }; // its events show the seat's play (another device's, or a stand-in's), the hand locked till then
      }
    }, true);
  };
  /**
   * The game as it now stands, if it moved on past version `seen` (what the page showed when the card was played, or
   * Deal pressed): a play or a deal refused by a move the page had not seen then (the seat's on another device, a
   * stand-in's at the deadline) lost a race; null otherwise. @param {number} seen
   */
  async function movedOn(seen) {
    const game = await api.getGame(gameId).catch(() => null);
    return game && game.version > seen ? game : null;
  }
  const playAgain = () => state.failedPlay && play(state.failedPlay.card, state.failedPlay.key);
  /**
   * A card may be played: this seat's turn as shown, nothing in flight, the last play's events shown, none
   * waiting to be shown, and no completed trick held on the table: the turn comes with the card that completes
   * a trick, and a click must not lead into the next one while that trick is still being shown.
   */
  const canPlay = () =>
    state.game?.status === "playing" &&
    state.game.turn === mine() &&
    mine() !== null &&
    !state.busy &&
    state.awaited === null &&
    !paced.waiting() &&
    state.held === null;
  /** The rematch offer (made by the first seat to ask, accepted or declined by the others). */
  const offer = rematchOffer(gameId, { render, asSeat });
  /**
   * Ask before leaving (true), or not any more (false). The question takes the keyboard (on Stay, the choice that
   * changes nothing); answered with Stay or closed with Escape, it gives it back to Leave. @param {boolean} asking
   */
  const confirm = (asking) => ((state.confirmLeave = asking), (focusNext = asking ? "leave-no" : "leave"), render());
  const dismiss = () => ((state.error = null), render());
  const dismissHint = () => ((state.hint = null), (focusNext = "hint"), render());
  // Escape closes what lies over the table: the leave question, else the hint.
  view.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || (!state.confirmLeave && !state.hint)) return;
    event.preventDefault();
    if (state.confirmLeave) confirm(false);
    else dismissHint();
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
      const former = state.formerSeat;
      state.formerSeat = held.seat; // the log's "you" still, for the events that may come before the answer
      let game;
      try {
        game = await api.leaveGame(gameId, held.token, held.seat);
      } catch (error) {
        credential = held;
        state.formerSeat = former;
        throw error;
      }
      forgetSeat(gameId);
      noteLeaving(held.seat, true); // its event may come before this answer, or be skipped by the spectator's stream
      state.hand = null;
      state.left = "left";
      state.confirmLeave = false;
      stopEvents();
      stopEvents = follow(); // on as a spectator
      return game;
    });

  /**
   * The table never grows shorter under the window (cards played, a hand's or the game's end, the settings gone at the
   * end): a page ending above the window's bottom would move a reader scrolled down to the hand, as if it scrolled by
   * itself. So before each render it keeps its height less what the page holds below the window, which may go with no
   * blank left in its place; a blank kept under a reader at the very bottom goes as they scroll back up.
   */
  function holdPlace() {
    const below = Math.max(0, document.documentElement.scrollHeight - scrollY - document.documentElement.clientHeight);
    view.style.minHeight = `${Math.max(0, view.getBoundingClientRect().height - below)}px`;
  }
  addEventListener("scroll", holdPlace, { passive: true });
  addEventListener("resize", holdPlace);

  function render() {
    const active = document.activeElement;
    const focused = active instanceof HTMLElement ? active.dataset.key : undefined;
    const hadFocus = active !== null && active !== view && view.contains(active);
    // Where the focused card is in the row as shown (a card just played is no longer in the hand's state).
    const cardIndex = [...view.querySelectorAll(".card-button")].findIndex((button) => button === active);
    const logScroll = view.querySelector(".log");
    const atBottom = !logScroll || logScroll.scrollTop + logScroll.clientHeight >= logScroll.scrollHeight - 4;
    holdPlace();
    motion.before();
    replace(view, tableView());
    motion.after();
    const log = view.querySelector(".log");
    if (log && atBottom) log.scrollTop = log.scrollHeight; // follow the newest line unless the reader scrolled up
    restoreFocus(view, focusNext || focused, cardIndex, ".card-button");
    focusNext = "";
    // The focused control went with this render (Deal once dealt, Stay, a ×): the keyboard stays on the table, whose next Tab is its first control.
    if (hadFocus && !view.contains(document.activeElement)) view.focus({ preventScroll: true });
    focusOnArrival();
    const game = state.game;
    const yourTurn = game !== null && !over(game) && game.turn === mine() && mine() !== null;
    document.title = yourTurn ? `▶ ${t("title.yourTurn")} · Coins` : "Coins";
    clock.update(game, yourTurn);
    if (game) turnSound.update(yourTurn);
    if (game) turnNote.update(yourTurn, loadPlayer()?.id ?? null);
  }

  /**
   * The first time the table is drawn, if the focus was lost on the way (the lobby's form, or the link, that brought
   * the reader here is gone: a game created with Enter), it goes to the table itself, the element its renders keep
   * (its contents are drawn anew each time): the next Tab is the table's first control, not the page's first link.
   */
  let arrived = false;
  function focusOnArrival() {
    if (arrived || !state.game) return;
    arrived = true;
    const active = document.activeElement;
    if (active === null || active === document.body || !active.isConnected) view.focus({ preventScroll: true });
  }

  function tableView() {
    const game = state.game;
    if (!game && isMissingGame(state.error)) return missingGameView(gameId);
    if (!game) return h("div", {}, state.error ? problemNotice(state.error) : h("p", {}, "…"), h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))));
    const seat = mine();
    const hands = replayHands(history.moves);
    return h(
      "div",
      { class: "table", "data-status": game.status, "data-version": game.version, "data-paced": paced.busy() ? "true" : "false" },
      h(
        "div",
        { class: "table-main" },
        state.left && (state.left === "left" || movesRead) && infoNotice(t(state.left === "lost" && state.formerSeat !== null && lastMoveTimedOut(state.formerSeat) ? "table.timedOut" : "table.left")),
        seat === null && !state.left && infoNotice(t("table.spectator")),
        seededNotice(game),
        feltView(game, seat, hands),
        seat !== null && !over(game) && handPanel(game, seat),
        game.status !== "cancelled" && notesView(game, seat),
      ),
      h(
        "aside",
        { class: "table-side" },
        h("section", { class: "panel" }, h("h2", {}, t("table.scores")), scoresView(game, seat, hands)),
        review.view(game, seat),
        game.status === "waiting_for_players" && inviteView(game),
        fairnessView(game.status === "playing" ? game.commitment : null, [...state.checks.values()].reverse()),
        game.hand_number > 0 && record.view(game),
        logPanel(lines(), game.status === "cancelled" || game.status === "finished" ? "ended" : state.live),
        seat !== null && !over(game) && settingsPanel({ sound: turnSoundOn(), onSound: (on) => (setTurnSound(on), render()) }),
        h("p", {}, h("a", { href: "#/", "data-key": "back" }, t("table.backToLobby"))),
      ),
    );
  }

  /**
   * What comes and goes (an error, the lost connection, a play to send again), laid over the table rather than put in
   * its flow, so that nothing below moves when one shows; just under the status line, whose turn clock stays in sight.
   */
  function noticesView() {
    const failed = state.failedPlay;
    return h(
      "div",
      { class: "notices" },
      state.live === "reconnecting" && h("p", { class: "message warning-note", role: "status", id: "reconnecting" }, t("table.reconnecting")),
      failed &&
        h(
          "div",
          { class: "message error", role: "alert", id: "play-failed" },
          t("table.playFailed", { card: cardName(failed.card) }),
          " ",
          h("button", { type: "button", class: "primary", "data-key": "play-again", disabled: !canPlay(), onclick: playAgain }, t("table.playAgain")),
        ),
      state.error != null && !failed && h("div", { class: "dismissable" }, problemNotice(state.error), h("button", { type: "button", class: "dismiss", "data-key": "dismiss", "aria-label": t("table.dismiss"), onclick: dismiss }, "×")),
    );
  }

  /** The public table: status, seats, the trick in front of who played it; over the trick a hand's summary, or the result. */
  function feltView(game, seat, hands) {
    const hand = game.hand_number ? `${t("table.hand", { n: game.hand_number })} · ` : "";
    const summary = state.summary === null ? undefined : hands.find((item) => item.hand_number === state.summary);
    const onTable = state.held ?? game.trick;
    // The last trick of the game is held on the table first (its events carry the finished game): the result after it.
    const finished = game.status === "finished" && state.held === null;
    return h(
      "section",
      { class: "felt", "aria-labelledby": "status-line" },
      h("p", { class: "status-line", id: "status-line" }, hand + statusText(game, seat), clock.element),
      noticesView(),
      seatsView(game, seat),
      // A cancelled game never started: no trick to show, nor room for one.
      game.status !== "cancelled" && h("h2", { class: "visually-hidden" }, t("table.trick")),
      game.status !== "cancelled" &&
        h(
          "div",
          { class: "trick-area" },
          trickSlots(game, onTable, seat, state.held !== null),
          state.held ? heldTrickLine(game, state.held, seat) : h("p", { class: "trick-line" }, "\u00a0"),
          !finished && summary && h("div", { class: "over-trick" }, summaryView(game, seat, summary, state.checks.get(summary.hand_number))),
          finished &&
            h(
              "div",
              { class: "over-trick result", id: "result" },
              game.winner !== null && winnerView(game, seat),
              ratingNote(game, seat),
              offer.view(game, seat, state.busy),
            ),
        ),
    );
  }

  /** Below the hand: the last trick (folded) and the suit cycle. */
  function notesView(game, seat) {
    const last = game.last_trick;
    return h(
      "section",
      { class: "table-notes", "aria-label": t("table.lastTrick") },
      h(
        "details",
        { class: "last-trick-box", open: view.querySelector(".last-trick-box")?.hasAttribute("open") }, // drawn again as the reader left it
        h("summary", { "data-key": "last-trick" }, t("table.lastTrick"), last?.winner != null ? ` · ${t("table.lastTrickWon", { name: name(last.winner), points: t("count.points", { count: last.points ?? 0 }) })}` : ""),
        trickView(game, last, seat, "last-trick"),
      ),
      cycleView(),
    );
  }

  /** This seat's controls and cards. */
  function handPanel(game, seat) {
    const held = state.hand;
    const cards = game.status === "playing" && held && held.hand_number === game.hand_number ? held.cards : null;
    const playable = canPlay();
    return h(
      "section",
      { class: `panel your-hand${playable ? " your-turn" : ""}`, "aria-labelledby": "hand-title", "aria-busy": state.busy ? "true" : "false" },
      h("div", { class: "hand-head" }, h("h2", { id: "hand-title" }, t("table.yourCards")), seatControls({ game, seat, busy: state.busy, confirmLeave: state.confirmLeave, deal, hint, leave, confirm })),
      // The hint lies over the hand's buttons, beside the card it marks: the table (status, seats, trick) stays in view.
      state.hint &&
        h(
          "div",
          { class: "dismissable hint-note", id: "hint" },
          infoNotice(t("table.hintSays", { card: cardName(state.hint.card), reason: hintReason(state.hint) })),
          h("button", { type: "button", class: "dismiss", "data-key": "dismiss-hint", "aria-label": t("table.dismiss"), onclick: dismissHint }, "×"),
        ),
      // The row is there between hands too (empty): the panel keeps its height.
      cards ? cachedHand(cards, playable) : h("ul", { class: "hand", "aria-label": t("table.yourCards") }),
    );
  }

  /**
   * The hand's buttons, the same elements as long as nothing about them changed: a render in
   * the middle of a click (between press and release) must not swallow it.
   * @param {import("./types.js").CardCode[]} cards @param {boolean} playable
   */
  function cachedHand(cards, playable) {
    const hinted = state.hint?.card ?? null;
    const key = JSON.stringify([cards, playable, hinted, t("table.yourCards")]);
    if (handCache?.key !== key) handCache = { key, element: handView({ cards, playable, hinted, onPlay: play, label: t("table.yourCards") }) };
    return handCache.element;
  }

  return () => {
    removeEventListener("scroll", holdPlace);
    removeEventListener("resize", holdPlace);
    turnSound.stop();
    stopEvents();
    stopLanguage();
    stopRatings();
    paced.stop();
    clock.stop();
    review.stop();
    offer.stop();
    clearTimeout(awaitTimer);
    clearTimeout(ratingsTimer);
    unmounted = true;
    document.title = "Coins";
  };
}

/**
 * The log's first line, once the game has a first dealer: who, and how they were chosen ("drawn at random", the
 * oldest, named by the creator); none for a way this client does not know.
 * @param {Game|null} game @param {(seat: number) => string} name @returns {string[]}
 */
export function firstDealerLine(game, name) {
  const how = game?.first_dealer_chosen_by;
  if (!game || game.first_dealer == null || (how !== "drawn" && how !== "oldest" && how !== "named")) return [];
  return [t(`firstDealer.${how}`, { name: name(game.first_dealer) })];
}

/** The game will see no more moves: finished, or cancelled before it started. @param {import("./types.js").Game} game */
const over = (game) => game.status === "finished" || game.status === "cancelled";
