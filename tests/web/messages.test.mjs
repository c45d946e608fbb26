// Every language of the web client has exactly the English keys, keeps every placeholder, has each plural
// form its language needs (Intl.PluralRules), and every key the client's code asks for exists; Chinese numbers
// hands and tricks with one word each, as its table does.

import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { test } from "node:test";

import en from "../../service/web/js/messages/en.js";

const LANGUAGES = ["en", "es", "nl", "zh-Hant", "fr", "uk"];
const JS = new URL("../../service/web/js/", import.meta.url);
const placeholders = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]))].sort();
/** The texts of a message: itself, or each of its plural forms. */
const texts = (message) => (typeof message === "string" ? [message] : Object.values(message));
const allPlaceholders = (message) => [...new Set(texts(message).flatMap(placeholders))].sort();

for (const code of LANGUAGES) {
  test(`${code} has the English keys, placeholders and its plural forms`, async () => {
    const { default: messages } = await import(`../../service/web/js/messages/${code}.js`);
    assert.deepEqual(Object.keys(messages).sort(), Object.keys(en).sort());
    const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories.sort();
    for (const [key, text] of Object.entries(en)) {
      const message = messages[key];
      assert.equal(typeof message, typeof text, `${code} ${key}: plural in one language, not in another`);
      if (typeof message !== "string") {
        assert.deepEqual(Object.keys(message).sort(), categories, `${code} ${key}: the plural forms of ${code}`);
        for (const form of texts(message)) assert.ok(form.includes("{count}"), `${code} ${key}: a plural form without {count}`);
      }
      assert.deepEqual(allPlaceholders(message), allPlaceholders(text), `${code} ${key}`);
    }
  });
}

test("every message key the client's code names exists", async () => {
  const files = (await readdir(JS)).filter((name) => name.endsWith(".js"));
  const missing = [];
  for (const file of files) {
    const source = await readFile(new URL(file, JS), "utf8");
    for (const [, key] of source.matchAll(/\bt\("([a-zA-Z]+\.[\w.]+)"/g)) if (!(key in en)) missing.push(`${file}: ${key}`);
  }
  assert.deepEqual(missing, []);
});

test("Chinese names a hand 回合 and a trick 把 wherever it numbers them", async () => {
  const { default: zh } = await import("../../service/web/js/messages/zh-Hant.js");
  for (const [key, message] of Object.entries(zh)) {
    for (const text of texts(message)) {
      assert.doesNotMatch(text, /第 \{\w+\} (手|墩)|這手|上一手|下一手/, `zh-Hant ${key}: ${text}`);
    }
  }
});
