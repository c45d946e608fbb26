// The "Game record" panel of a table: download the game's record, or check all of it in the page.

import * as api from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { seededNotice } from "./notice.js";
import { checkRecord, recordCheckText } from "./record-check.js";

/**
 * The panel's state and its view. `render` draws the table again; `onError` shows a problem.
 * @param {string} gameId
 * @param {{render: () => void, onError: (error: unknown) => void}} table
 */
export function recordPanel(gameId, { render, onError }) {
  /** @type {"checking"|import("./record-check.js").RecordCheck|null} */
  let check = null;

  /** Save the game's record as served, as `coins-<id>.json` (a Blob behind an <a download>: no inline script). */
  async function download() {
    try {
      const { text } = await api.getRecord(gameId);
      const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      const link = h("a", { href: url, download: `coins-${gameId}.json`, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      onError(error);
    }
  }

  /** Download the record and check all of it here, as coins-verify would. */
  async function checkWhole() {
    check = "checking";
    render();
    try {
      check = await checkRecord((await api.getRecord(gameId)).record);
    } catch (error) {
      check = null;
      onError(error);
    }
    render();
  }

  /**
   * The game record: download it, or check it whole (every hand over so far, and the outcome).
   * A seeded game's record says so: its deals check, yet anyone with the seed knew them.
   * @param {{seeded: boolean}} game
   */
  function view(game) {
    let result = null;
    if (check === "checking") result = h("p", { id: "record-check" }, t("record.checking"));
    else if (check?.ok) result = h("p", { id: "record-check", class: "verified", "data-verified": "true" }, recordCheckText(check));
    else if (check) result = h("p", { id: "record-check", class: "warning", role: "alert", "data-verified": "false" }, recordCheckText(check));
    return h(
      "section",
      { class: "panel game-record", "aria-labelledby": "record-title" },
      h("h2", { id: "record-title" }, t("record.title")),
      seededNotice(game),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", "data-key": "record-download", onclick: download }, t("record.download")),
        h("button", { type: "button", "data-key": "record-check", disabled: check === "checking", onclick: checkWhole }, t("record.check")),
      ),
      result,
    );
  }

  return { view };
}
