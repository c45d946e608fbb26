// Fails when openapi.yaml would break a client of the latest released contract (docs/compatibility.md).
//
//   node .ci/breaking_changes.mjs                          # openapi.yaml against the latest openapi/X.Y.Z.yaml
//   node .ci/breaking_changes.mjs RELEASED.yaml CURRENT.yaml [--accepted FILE.yaml]
//
// The judge is api-smart-diff (npm, pinned in package.json): it compares the two documents operation by
// operation and classifies each change as breaking or not for its side, request or response. Two
// things are added here, both written down in docs/compatibility.md:
// - the released spec's accepted file (openapi/X.Y.Z-accepted.yaml), the deliberate changes the tool
//   reads as breaking and the contract says are not (and the few requests the contract narrows on
//   purpose, each with its reason, a field or a whole request schema; and path parameters widened to take a value more, which the tool
//   reads as a replaced pattern), is applied to the released spec first;
// - the contract's verdict where it differs from the tool's, on what clients read (contractVerdict):
//   a value added to an open enum of a response (`anyOf: [the enum, string]`) or an event type added
//   to a feed's union is an addition, which the tool, reading every enum as closed, calls breaking;
//   their removal breaks the contract's promise (nothing is removed within v1), which the tool, for a
//   response, does not flag; and so does a property's `type` replaced by another (api-smart-diff
//   1.0.6 reverses its request rule for responses, and a replaced type becomes "non-breaking");
// - a union of events made a `oneOf` from an `anyOf`, used by responses only (narrowResponseUnions):
//   what a oneOf admits its anyOf admitted, so the server's answers only narrow (here they stay the
//   same: each event has its own one-value `type`); the released union is given the oneOf first.
// Every other change the tool calls breaking fails the check. Exit 0: compatible; 1: breaking; 2: misuse.

import { apiCompare } from "api-smart-diff";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import yaml from "js-yaml";

const ROOT = new URL("..", import.meta.url).pathname;
const RELEASES = join(ROOT, "openapi");

const load = (file) => yaml.load(readFileSync(file, "utf8"));
const clone = (value) => structuredClone(value);
const refName = (node) => node?.$ref?.split("/").pop();
const UNLISTED_VALUE = (node) => node?.type === "string" && !node.enum && !node.$ref;

/** The latest released spec in openapi/ (X.Y.Z.yaml, highest version first). */
export function latestRelease(folder = RELEASES) {
  const versions = readdirSync(folder)
    .map((name) => /^(\d+)\.(\d+)\.(\d+)\.yaml$/.exec(name))
    .filter(Boolean)
    .sort((a, b) => b[1] - a[1] || b[2] - a[2] || b[3] - a[3]);
  if (!versions.length) throw new Error(`no released spec in ${folder}`);
  return join(folder, versions[0][0]);
}

/** The released spec with the accepted changes applied, each checked to be one `current` really made. */
export function applyAccepted(released, current, accepted) {
  const base = clone(released);
  const schemas = base.components.schemas;
  const now = current.components.schemas;
  const fail = (message) => {
    throw new Error(`accepted file: ${message}`);
  };
  for (const name of accepted.opened_objects ?? []) {
    if (schemas[name]?.additionalProperties !== false) fail(`${name} was not closed in the released spec`);
    if (now[name]?.additionalProperties === false) fail(`${name} is still closed`);
    delete schemas[name].additionalProperties;
  }
  for (const [site, enumName] of Object.entries(accepted.opened_enums ?? {})) {
    const [component, property] = site.split(".");
    const before = schemas[component]?.properties?.[property];
    const after = now[component]?.properties?.[property];
    const forms = after?.anyOf ?? [];
    if (!before) fail(`${site} is not in the released spec`);
    if (refName(forms[0]) !== enumName || !forms.some(UNLISTED_VALUE)) fail(`${site} is not open on ${enumName}`);
    const { type, enum: values, $ref, anyOf, ...rest } = before;
    const nullable = (anyOf ?? []).some((form) => form.type === "null") || (Array.isArray(type) && type.includes("null"));
    const known = $ref ?? anyOf?.find((form) => form.$ref)?.$ref;
    if (known && refName({ $ref: known }) !== enumName) fail(`${site} referred to ${known}, not ${enumName}`);
    if (!known) {
      if (!values) fail(`${site} was no enum`);
      if (schemas[enumName] && JSON.stringify(schemas[enumName].enum) !== JSON.stringify(values)) {
        fail(`${site}: ${enumName} had other values elsewhere`);
      }
      schemas[enumName] ??= { ...clone(now[enumName]), enum: values }; // named with the released values
    }
    const unlisted = clone(forms.find(UNLISTED_VALUE));
    const open = [{ $ref: `#/components/schemas/${enumName}` }, unlisted, ...(nullable ? [{ type: "null" }] : [])];
    schemas[component].properties[property] = { ...rest, anyOf: open };
  }
  for (const [site, unlisted] of Object.entries(accepted.opened_feeds ?? {})) {
    // A feed's items: the released union (a $ref), now its forms then the unlisted event, flat (an
    // anyOf of the union's forms is the union: the same events). The released spec gets the same
    // shape over its own forms, so an event type added since is judged as one added to a union.
    const [component, property] = site.split(".");
    const items = schemas[component]?.properties?.[property]?.items;
    const after = now[component]?.properties?.[property]?.items?.anyOf ?? [];
    const union = refName(items);
    const unionForms = now[union]?.oneOf ?? now[union]?.anyOf ?? [];
    const flat = JSON.stringify(after.slice(0, -1)) === JSON.stringify(unionForms);
    if (!items?.$ref || !flat || refName(after.at(-1)) !== unlisted) {
      fail(`${site} is not "the forms of ${union ?? "?"}, then ${unlisted}"`);
    }
    const released = schemas[union]?.anyOf ?? schemas[union]?.oneOf ?? [];
    schemas[component].properties[property].items = { anyOf: [...clone(released), { $ref: `#/components/schemas/${unlisted}` }] };
    schemas[unlisted] = clone(now[unlisted]);
  }
  for (const [site, reason] of Object.entries(accepted.narrowed_requests ?? {})) {
    const [component, property] = site.split(".");
    const before = schemas[component]?.properties?.[property];
    const after = now[component]?.properties?.[property];
    if (!before || !after) fail(`${site} is not in both specs`);
    if (!String(reason ?? "").trim()) fail(`${site} gives no reason`);
    if (JSON.stringify(before) === JSON.stringify(after)) fail(`${site} did not change`);
    schemas[component].properties[property] = clone(after);
  }
  for (const [name, reason] of Object.entries(accepted.narrowed_request_schemas ?? {})) {
    if (!String(reason ?? "").trim()) fail(`${name} gives no reason`);
    if (!schemas[name] || !now[name]) fail(`${name} is not in both specs`);
    if (JSON.stringify(schemas[name]) === JSON.stringify(now[name])) fail(`${name} did not change`);
    schemas[name] = clone(now[name]);
    for (const form of now[name].anyOf ?? []) {
      const part = refName(form);
      if (part && !schemas[part]) schemas[part] = clone(now[part]); // the forms it is made of, new with it
    }
  }
  for (const [name, reason] of Object.entries(accepted.widened_path_parameters ?? {})) {
    if (!String(reason ?? "").trim()) fail(`${name} gives no reason`);
    let sites = 0;
    for (const [path, item] of Object.entries(base.paths ?? {})) {
      const index = (item.parameters ?? []).findIndex((p) => p.in === "path" && p.name === name);
      if (index < 0) continue;
      const after = (current.paths?.[path]?.parameters ?? []).find((p) => p.in === "path" && p.name === name);
      if (!after) fail(`${name} is no path parameter of ${path} any more`);
      if (JSON.stringify(after.schema) === JSON.stringify(item.parameters[index].schema)) continue; // unchanged here
      if (!widens(item.parameters[index].schema, after.schema)) fail(`${name} of ${path} is not widened`);
      item.parameters[index] = clone(after);
      sites += 1;
    }
    if (!sites) fail(`${name} is no path parameter of the released spec`);
  }
  narrowResponseUnions(base, current);
  return base;
}

/**
 * A union of events made a oneOf from an anyOf, in what only responses use, is the same union
 * (docs/compatibility.md, "Unions of responses"): every value a oneOf admits its anyOf admitted (a
 * oneOf narrows, never widens, what the server may send, so no client of the anyOf meets anything
 * new), and here it admits exactly the same ones, each form having its own one-value `type`. Such a
 * component is given its current oneOf in the released spec before the comparison; in a request (a
 * body a client sends) a oneOf would refuse one matching two forms, and is judged by the tool.
 */
function narrowResponseUnions(base, current) {
  const schemas = base.components.schemas;
  const now = current.components.schemas;
  const inRequests = requestComponents(current);
  for (const [name, schema] of Object.entries(now)) {
    if (!schema.oneOf || !schemas[name]?.anyOf || inRequests.has(name)) continue;
    const forms = schema.oneOf.map(refName);
    const types = forms.map((form) => now[form]?.properties?.type?.enum);
    const disjoint = types.every((values) => values?.length === 1) && new Set(types.map((values) => values[0])).size === forms.length;
    const released = schemas[name].anyOf.map(refName);
    if (!disjoint || !released.every((form) => forms.includes(form))) continue;
    const { anyOf: _anyOf, ...rest } = schemas[name];
    schemas[name] = { ...rest, oneOf: clone(schemas[name].anyOf), discriminator: clone(schema.discriminator) };
    console.log(`  ${name}: anyOf made oneOf in responses only, the same events (docs/compatibility.md)`);
  }
}

/** The components a request (a body or a parameter) of `document` uses, directly or through others. */
function requestComponents(document) {
  const found = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const name = node.$ref?.startsWith("#/components/schemas/") ? refName(node) : undefined;
    if (name && !found.has(name)) {
      found.add(name);
      visit(document.components.schemas[name]);
    }
    Object.values(node).forEach(visit);
  };
  for (const item of Object.values(document.paths ?? {})) {
    visit(item.parameters);
    for (const operation of Object.values(item)) {
      if (operation && typeof operation === "object" && !Array.isArray(operation)) {
        visit(operation.requestBody);
        visit(operation.parameters);
      }
    }
  }
  return found;
}

/** Whether string schema `after` takes every value `before` took, by the one form allowed: its
 * pattern `^(?:A|B|…)$` has `before`'s pattern (`^X$`) as one alternative, its bounds no tighter. */
function widens(before, after) {
  const body = /^\^(.*)\$$/.exec(before?.pattern ?? "")?.[1];
  const alternatives = /^\^\(\?:(.*)\)\$$/.exec(after?.pattern ?? "")?.[1]?.split("|") ?? [];
  const { pattern: _b, minLength: minBefore = 0, maxLength: maxBefore = Infinity, ...restBefore } = before ?? {};
  const { pattern: _a, minLength: minAfter = 0, maxLength: maxAfter = Infinity, ...restAfter } = after ?? {};
  return (
    body !== undefined &&
    alternatives.includes(body) &&
    minAfter <= minBefore &&
    maxAfter >= maxBefore &&
    JSON.stringify(restBefore) === JSON.stringify(restAfter)
  );
}

/** The node at `path` of `document`, or undefined. */
const at = (document, path) => path.reduce((node, key) => (node == null ? undefined : node[key]), document);

/** The one `type` of an event schema (or of the allOf the tool wraps a union's form in; `$ref`s are
 * resolved in `document`), else undefined. */
function eventType(node, document) {
  const resolve = (form) => (form?.$ref ? at(document, form.$ref.slice(2).split("/")) : form);
  const types = [node, ...(node?.allOf ?? [])].map((form) => resolve(form)?.properties?.type?.enum).filter(Boolean);
  return types.length === 1 && types[0].length === 1 && typeof types[0][0] === "string" ? types[0][0] : undefined;
}

/** Whether `path` (in the tool's merged document) is a value of an open enum: .../anyOf/0[/allOf/N]/enum/K,
 * whose anyOf also takes any other string. */
function inOpenEnum(path, merged) {
  if (path.at(-2) !== "enum") return false;
  const anyOf = path.lastIndexOf("anyOf");
  const between = path.slice(anyOf + 2, -2);
  const forms = anyOf >= 0 ? at(merged, path.slice(0, anyOf + 1)) : undefined;
  const first = path[anyOf + 1] === 0 && (between.length === 0 || (between.length === 2 && between[0] === "allOf"));
  return first && Array.isArray(forms) && forms.some(UNLISTED_VALUE);
}

/**
 * The contract's verdict on a change to what clients read, where it differs from the tool's (which
 * reads every enum as closed and reverses its request rules for responses), else undefined:
 * - a value added to an open enum, or an event type added to a feed's union: allowed (an addition);
 * - a value removed from an open enum, or an event type removed: breaking (nothing is removed within v1);
 * - a property's `type` replaced by another: breaking (the tool calls it compatible in a response).
 */
function contractVerdict(diff, merged, before, after) {
  const path = diff.path;
  if (!path.includes("responses")) return undefined;
  const added = diff.action === "add";
  const event = ["anyOf", "oneOf"].includes(path.at(-2)) ? eventType(added ? diff.after : diff.before, added ? after : before) : undefined;
  if (diff.action === "add" && (inOpenEnum(path, merged) || event)) return "allowed";
  if (diff.action === "remove" && (inOpenEnum(path, merged) || event)) return "breaking";
  if (diff.action === "replace" && path.at(-1) === "type") return "breaking";
  return undefined;
}

/** The changes that break a client of `released`, after its accepted changes. */
export function breakingChanges(released, current, accepted = {}) {
  const base = applyAccepted(released, current, accepted);
  const { diffs, merged } = apiCompare(clone(base), clone(current)); // it changes the documents it is given
  // Changes in paths: each judged for its side (request or response); components alone say nothing.
  const judged = diffs.filter((diff) => diff.path[0] === "paths");
  const verdict = (diff) => contractVerdict(diff, merged, base, current) ?? (diff.type === "breaking" ? "breaking" : "compatible");
  const verdicts = judged.map(verdict);
  const breaking = judged.filter((_, index) => verdicts[index] === "breaking");
  const counts = {};
  for (const diff of judged) counts[diff.type] = (counts[diff.type] ?? 0) + 1;
  return { breaking, counts, allowed: verdicts.filter((verdict) => verdict === "allowed").length };
}

function main(argv) {
  const files = argv.filter((arg) => !arg.startsWith("--"));
  const acceptedAt = argv.indexOf("--accepted");
  const releasedFile = files[0] ?? latestRelease();
  const currentFile = files[1] ?? join(ROOT, "openapi.yaml");
  const defaultAccepted = releasedFile.replace(/\.yaml$/, "-accepted.yaml");
  const acceptedFile = acceptedAt >= 0 ? argv[acceptedAt + 1] : existsSync(defaultAccepted) ? defaultAccepted : null;
  const accepted = acceptedFile ? load(acceptedFile) : {};
  const { breaking, counts, allowed } = breakingChanges(load(releasedFile), load(currentFile), accepted);
  const summary = Object.entries(counts).map(([type, count]) => `${count} ${type}`).join(", ") || "no change";
  console.log(`${currentFile} against ${releasedFile}${acceptedFile ? ` (accepted: ${acceptedFile})` : ""}: ${summary}`);
  if (allowed) console.log(`  ${allowed} additions to open enums or to event unions, which the contract allows`);
  if (!breaking.length) {
    console.log("no breaking change");
    return 0;
  }
  for (const diff of breaking) console.log(`BREAKING ${diff.action} ${diff.path.join("/")}: ${diff.description ?? ""}`);
  console.log(`${breaking.length} breaking changes`);
  return 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exitCode = 2;
  }
}
