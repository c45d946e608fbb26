// Every language of the web client has exactly the English keys, and keeps every placeholder.

import assert from "node:assert/strict";
import { test } from "node:test";

import en from "../../service/web/js/messages/en.js";

const LANGUAGES = ["es", "nl", "zh-Hant", "fr", "uk"];
const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

for (const code of LANGUAGES) {
  test(`${code} has the English keys and placeholders`, async () => {
    const { default: messages } = await import(`../../service/web/js/messages/${code}.js`);
    assert.deepEqual(Object.keys(messages).sort(), Object.keys(en).sort());
    for (const [key, text] of Object.entries(en)) {
      assert.deepEqual(placeholders(messages[key]), placeholders(text), `${code} ${key}`);
    }
  });
}
