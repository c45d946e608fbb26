// Messages shown to the player: an API problem in words, or a note, in a region screen readers announce.

import { h } from "./dom.js";
import { problemMessage } from "./i18n.js";

/** A problem (ApiProblem or any error) as a translated message box. @param {unknown} error */
export function problemNotice(error) {
  const code = error && typeof error === "object" && "code" in error ? String(error.code) : "internal_error";
  return h("p", { class: "message error", role: "alert", "data-problem": code }, problemMessage(code));
}

/** @param {string} text */
export const infoNotice = (text) => h("p", { class: "message info", role: "status" }, text);
