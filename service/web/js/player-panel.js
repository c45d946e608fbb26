// The lobby's player panel: create a player by name or sign in with a key; once signed in, who you are and "Play now".

import { h, oneAtATime, replace } from "./dom.js";
import { t } from "./i18n.js";
import { problemNotice } from "./notice.js";
import { createPlayer, signIn } from "./player.js";
import { quickPlay } from "./quick-play.js";
import { ratingText } from "./ratings.js";
import { loadName, loadPlayer } from "./store.js";
import { notifySwitch } from "./notify.js";
import * as api from "./api.js";

/**
 * @param {{onChange?: () => void}} [options] `onChange`: called after each render (signed in or out, the player read)
 * @returns {{element: HTMLElement, render: () => void, stop: () => void, name: () => string|null}}
 */
export function playerPanel({ onChange = () => {} } = {}) {
  const element = h("div", { class: "player-panel" });
  /** @type {{me: import("./types.js").Player|null, error: unknown}} */
  const state = { me: null, error: null };
  /** @type {ReturnType<typeof quickPlay>|null} */
  let quick = null;
  const name = h("input", { id: "player-name", name: "player-name", required: true, maxlength: 40, autocomplete: "nickname", value: loadName() });
  const key = h("input", { id: "player-key", name: "player-key", type: "password", required: true, autocomplete: "off", spellcheck: "false" });

  async function load() {
    const held = loadPlayer();
    if (!held) return renderAll();
    try {
      state.me = await api.getMe(held.key);
      state.error = null;
    } catch (error) {
      state.error = error; // a replaced key says so, with the way to sign in again
    }
    renderAll();
  }

  /** A player being made or a key being checked: a second submit meanwhile does nothing. */
  let running = false;

  /** @param {() => Promise<unknown>} step */
  const run = async (step) => {
    if (running) return;
    running = true;
    state.error = null;
    try {
      await step();
      name.value = "";
      key.value = "";
      await load();
    } catch (error) {
      state.error = error;
      render();
    } finally {
      running = false;
    }
  };

  function render() {
    const held = loadPlayer();
    // Drawn anew (a key refused, say), the keyboard stays in the form it was in; once that form has made or signed in
    // the player, the form is gone and the keyboard goes to the line saying who is signed in.
    const active = document.activeElement;
    const inForm = active && element.contains(active) ? active.closest("form")?.id : undefined;
    if (held && state.me) {
      quick ??= quickPlay(held.key);
      quick.render();
      const rating = ratingText(state.me.rating);
      replace(
        element,
        h(
          "section",
          { class: "panel signed-in", "aria-labelledby": "me-title" },
          h("h2", { id: "me-title", tabindex: "-1" }, t("player.signedIn", { name: state.me.name })),
          h("p", { "data-rating": state.me.rating.value }, t("player.ratingLine", { rating, count: state.me.rating.games })),
          h("p", {}, h("a", { href: "#/me", id: "profile-open" }, t("player.profile")), " · ", h("a", { href: "#/leaderboard" }, t("leaderboard.title"))),
          notifySwitch(held.key, state.me.id, (error) => ((state.error = error), render())),
          state.error ? problemNotice(state.error) : null,
        ),
        quick.element,
      );
      if (inForm === "player-create" || inForm === "player-sign-in") element.querySelector("h2")?.focus();
      return;
    }
    const label = (input, text) => h("label", { for: input.id }, text);
    const keyOpen = element.querySelector("details.sign-in")?.hasAttribute("open"); // "I have a key" stays open if it was
    replace(
      element,
      h(
        "section",
        { class: "panel", "aria-labelledby": "player-title" },
        h("h2", { id: "player-title" }, t("player.title")),
        h("p", {}, t("player.intro")),
        state.error ? problemNotice(state.error) : null,
        h(
          "form",
          { class: "form-grid", id: "player-create", onsubmit: oneAtATime(() => run(() => createPlayer(name.value.trim()))) },
          h("div", {}, label(name, t("player.name")), name),
          h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, t("player.create"))),
        ),
        h(
          "details",
          { class: "sign-in", open: keyOpen },
          h("summary", {}, t("player.haveKey")),
          h(
            "form",
            { class: "form-grid", id: "player-sign-in", onsubmit: oneAtATime(() => run(() => signIn(key.value))) },
            h("div", {}, label(key, t("player.key")), key),
            h("div", { class: "actions" }, h("button", { type: "submit" }, t("player.signIn"))),
          ),
        ),
      ),
    );
    if (inForm === "player-sign-in") key.focus();
    else if (inForm === "player-create") name.focus();
  }

  /** Each render, then whoever follows the panel. */
  const renderAll = () => (render(), onChange());
  renderAll();
  load();
  return { element, render: renderAll, stop: () => quick?.stop(), name: () => (loadPlayer() ? (state.me?.name ?? null) : null) };
}
