// Spanish articles agree with the card: "la sota" (the knave is feminine), "el rey", "el 7", in every Spanish
// message that names a card after an article; French elides before the ace: "l’as", "le roi"; and a card played
// is named with its article in both ("jugó el rey de oros", "a joué le roi de pièces", not "a joué roi").

import assert from "node:assert/strict";
import { test } from "node:test";

import { agreeInSpanish, elideInFrench } from "../../service/web/js/i18n.js";
import es from "../../service/web/js/messages/es.js";
import fr from "../../service/web/js/messages/fr.js";

test("the knave takes la, de la and a la; other cards and words are left alone", () => {
  assert.equal(agreeInSpanish("Ana jugó el sota de oros."), "Ana jugó la sota de oros.");
  assert.equal(agreeInSpanish("El sota de copas gana."), "La sota de copas gana.");
  assert.equal(agreeInSpanish("la baza del sota"), "la baza de la sota");
  assert.equal(agreeInSpanish("Al sota de bastos"), "A la sota de bastos");
  for (const text of ["jugó el rey de oros", "jugó el 7 de copas", "el soto", "la sota de oros"]) assert.equal(agreeInSpanish(text), text);
});

test("every Spanish message that names a card reads right with the knave", () => {
  for (const [key, message] of Object.entries(es)) {
    if (typeof message !== "string" || !message.includes("{card}")) continue;
    const text = agreeInSpanish(message.replaceAll("{card}", "sota de oros").replaceAll("{choice}", "sota de oros"));
    assert.doesNotMatch(text, /\b(el|del|al) sota\b/i, `${key}: ${text}`);
  }
});

test("French elides le before the ace, and leaves other cards and words alone", () => {
  assert.equal(elideInFrench("Ana a joué le as de pièces."), "Ana a joué l’as de pièces.");
  assert.equal(elideInFrench("Le as de coupes gagne."), "L’as de coupes gagne.");
  for (const text of ["a joué le roi de pièces", "a joué le 7 de coupes", "le asile", "l’as de pièces"]) assert.equal(elideInFrench(text), text);
});

test("a card played is named with its article in Spanish and French", () => {
  for (const [language, messages, played] of [
    ["es", es, /\b(jugó|jugaste|jugado) \{(card|choice)\}/],
    ["fr", fr, /\b(joué) \{(card|choice)\}/],
  ]) {
    for (const [key, message] of Object.entries(messages)) {
      if (typeof message === "string") assert.doesNotMatch(message, played, `${language} ${key}: ${message}`);
    }
  }
});
