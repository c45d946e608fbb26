// "Play now": queue for quick play, follow the player feed until matched (reading the ticket as a fallback), wherever the
// player goes in the app meanwhile, then open the game.

import * as api from "./api.js";
import { followPlayer } from "./events.js";
import { h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { problemNotice } from "./notice.js";
import { loadTicket, saveTicket } from "./store.js";

/** How often the ticket is read while the feed is not live, and while it is (a missed event, a lost stream). */
const READ_OFFLINE_MS = 3_000;
const READ_LIVE_MS = 15_000;
/** The longest this page waits on one ticket (the service matches any three within a minute). */
const WAIT_LIMIT_MS = 15 * 60_000;
const BOTS_AFTER = ["60", "30", "never"];
/** The clocks offered, in seconds a turn: a live game, or correspondence over days (tickets match only the same clock). */
const CLOCKS = ["60", "86400", "259200"];
const DAY_SECONDS = 86_400;

/**
 * The search under way (a waiting ticket): it outlives the lobby, so that it goes on wherever the player is in the app (a
 * ticket whose player neither follows their feed nor reads it for 30 seconds expires), opens the game once matched, and
 * is the panel the lobby shows again. @type {{key: string, panel: ReturnType<typeof quickPlay>, end: () => void}|null}
 */
let searching = null;

/** Stop following the search under way (signed out, the key replaced): its ticket expires unread. */
export const endSearch = () => searching?.end();

/**
 * The quick-play panel for the signed-in player (their key): options, "Play now", then the
 * waiting time and "Cancel" until the game is found, which is then opened.
 * @param {string} key
 * @returns {{element: HTMLElement, render: () => void, stop: () => void}}
 */
export function quickPlay(key) {
  if (searching?.key === key) return searching.panel;
  const element = h("section", { class: "panel quick-play", "aria-labelledby": "quick-title" });
  const fields = {
    target: h("input", { id: "quick-target", type: "number", min: 1, max: 100, value: "15", required: true, inputmode: "numeric" }),
    rated: h("input", { id: "quick-rated", type: "checkbox", checked: true }),
    bots: h("select", { id: "quick-bots" }),
    clock: h("select", { id: "quick-clock" }),
  };
  const clock = h("span", { class: "waited", id: "quick-waited" });
  const botsIn = h("span", { class: "bots-in", id: "quick-bots-in" });
  /** @type {{ticket: import("./types.js").Ticket|null, since: number, error: unknown, busy: boolean, note: string|null}} */
  const state = { ticket: null, since: 0, error: null, busy: false, note: null };
  let stopFeed = () => {};
  /** @type {ReturnType<typeof setInterval>|undefined} */ let tick;
  /** @type {ReturnType<typeof setTimeout>|undefined} */ let reader;
  let live = false;
  let following = false;

  const resumed = loadTicket();
  if (resumed) api.getTicket(key, resumed).then(take, () => saveTicket(null));

  /** @param {SubmitEvent} event */
  async function playNow(event) {
    event.preventDefault();
    if (state.busy || state.ticket) return;
    state.busy = true;
    state.error = null;
    render();
    follow(); // the feed first, so that its match_found cannot come before it is open
    const bots = fields.bots.value;
    try {
      const options = { target_score: Number(fields.target.value), rated: fields.rated.checked, bots_after: bots === "never" ? null : Number(bots) };
      take(await api.enterQueue(key, { ...options, turn_timeout_seconds: Number(fields.clock.value || CLOCKS[0]) }));
    } catch (error) {
      const waiting = waitingTicket(error);
      if (waiting) {
        // A wait begun elsewhere (another device or tab of the player): this page shows it, with Cancel.
        state.note = t("quick.alreadyWaiting");
        await api.getTicket(key, waiting).then(take, (failure) => ((state.error = failure), stop()));
      } else {
        state.error = error;
        stop();
      }
    }
    state.busy = false;
    render();
  }

  function follow() {
    stopFeed();
    following = true;
    stopFeed = followPlayer(key, {
      onEvent: (event) => {
        if (event.type === "match_found" && (!state.ticket || event.ticket === state.ticket.id)) open(event.game);
      },
      onStatus: (status, problem) => {
        live = status === "live";
        if (problem) (state.error = problem), render();
      },
    });
  }

  /** A ticket read or made: waiting goes on, matched opens its game, anything else ends the wait. @param {import("./types.js").Ticket} ticket */
  function take(ticket) {
    if (ticket.status === "matched" && ticket.game) return open(ticket.game);
    if (ticket.status !== "waiting") {
      state.error = ticket.status === "expired" ? { code: "ticket_expired" } : null;
      return stop();
    }
    if (!state.ticket) {
      // Since the ticket was made (a resumed one too), by this browser's clock: never in the future.
      state.since = Math.min(Date.now(), Date.parse(ticket.created_at) || Date.now());
      tick = setInterval(showWaited, 1000);
      if (!following) follow();
      searching = { key, panel, end: stop };
    }
    state.ticket = ticket;
    saveTicket(ticket.id);
    schedule();
    render();
  }

  /** Read the ticket again soon (sooner while the feed is down): the fallback when an event is missed. */
  function schedule() {
    clearTimeout(reader);
    if (Date.now() - state.since > WAIT_LIMIT_MS) return cancel();
    reader = setTimeout(() => {
      const ticket = state.ticket;
      if (ticket) api.getTicket(key, ticket.id).then(take, (error) => ((state.error = error), schedule(), render()));
    }, live ? READ_LIVE_MS : READ_OFFLINE_MS);
  }

  /** @param {string} gameId */
  function open(gameId) {
    stop();
    location.hash = `#/game/${encodeURIComponent(gameId)}`;
  }

  async function cancel() {
    const ticket = state.ticket;
    if (!ticket || state.busy) return;
    state.busy = true;
    render();
    try {
      await api.cancelTicket(key, ticket.id);
      stop();
    } catch (error) {
      // Matched in the meantime: the game is there, so it opens.
      if (error instanceof api.ApiProblem && error.code === "ticket_matched") return take(await api.getTicket(key, ticket.id));
      state.error = error;
    }
    state.busy = false;
    render();
  }

  /** No more waiting: the feed closed, the timers cleared, the ticket forgotten. */
  function stop() {
    if (searching?.panel === panel) searching = null;
    stopFeed();
    following = false;
    clearInterval(tick);
    clearTimeout(reader);
    state.ticket = null;
    state.note = null;
    saveTicket(null);
    render();
  }

  function showWaited() {
    const seconds = Math.floor((Date.now() - state.since) / 1000);
    clock.textContent = t("quick.waited", { time: minutes(seconds) });
    const after = state.ticket?.bots_after;
    if (after === null || after === undefined) botsIn.textContent = "";
    else botsIn.textContent = seconds < after ? t("quick.botsIn", { time: minutes(after - seconds) }) : t("quick.botsJoining");
  }

  function render() {
    const label = (input, text) => h("label", { for: input.id }, text);
    const chosen = fields.bots.value || "60";
    replace(fields.bots, BOTS_AFTER.map((value) => h("option", { value, selected: value === chosen }, value === "never" ? t("quick.botsNever") : t("quick.botsAfter", { count: Number(value) }))));
    const clockChosen = fields.clock.value || CLOCKS[0];
    replace(fields.clock, CLOCKS.map((value) => h("option", { value, selected: value === clockChosen }, clockName(Number(value)))));
    if (state.ticket) {
      showWaited();
      const bots = state.ticket.bots_after !== null;
      replace(
        element,
        h("h2", { id: "quick-title" }, t("quick.title")),
        // Only the words are a live region: the time waited, counted each second inside it, was read out every second.
        h("p", { class: "waiting", "data-ticket": "waiting" }, h("span", { role: "status" }, t("quick.waiting")), " ", clock),
        bots ? h("p", { class: "bots-line" }, botsIn) : null,
        bots ? h("p", { class: "hint-line", id: "quick-bots-which" }, t(state.ticket.rated ? "quick.botsRated" : "quick.botsCasual")) : null,
        state.note ? h("p", { class: "hint-line", id: "quick-note" }, state.note) : null,
        state.error ? problemNotice(state.error) : null,
        h("p", { class: "actions" }, h("button", { type: "button", id: "quick-cancel", disabled: state.busy, onclick: cancel }, t("quick.cancel"))),
      );
      return;
    }
    replace(
      element,
      h("h2", { id: "quick-title" }, t("quick.title")),
      h("p", {}, t("quick.intro")),
      h(
        "form",
        { class: "form-grid", onsubmit: playNow },
        h("div", {}, label(fields.target, t("lobby.target")), fields.target),
        h("div", {}, label(fields.bots, t("quick.bots")), fields.bots),
        h("div", {}, label(fields.clock, t("quick.clock")), fields.clock),
        h("div", { class: "check" }, fields.rated, label(fields.rated, t("quick.rated"))),
        state.error ? problemNotice(state.error) : null,
        h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "play-now", disabled: state.busy }, t("quick.playNow"))),
      ),
    );
  }

  // Leaving the lobby stops nothing while a ticket waits (or is being made): the search goes on (`searching`).
  const panel = { element, render, stop: () => void (state.ticket || state.busy || (stopFeed(), clearInterval(tick), clearTimeout(reader))) };
  render();
  return panel;
}

/**
 * The player's waiting ticket a refused "Play now" names (`409 already_queued`: one wait at a time), if that was why.
 * @param {unknown} error @returns {string|null}
 */
const waitingTicket = (error) =>
  error instanceof api.ApiProblem && error.code === "already_queued" && typeof error.problem?.ticket === "string" ? error.problem.ticket : null;

/** Seconds as m:ss. @param {number} seconds */
const minutes = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;

/** A clock's name: minutes for a live game, days for correspondence. @param {number} seconds */
const clockName = (seconds) => (seconds >= DAY_SECONDS ? t("quick.clockDays", { count: seconds / DAY_SECONDS }) : t("quick.clockMinutes", { count: seconds / 60 }));
