// DynamoDB's typed JSON (AttributeValue) and what the page shows of it.

/** Typed AttributeValue -> plain JS value (numbers stay strings: they are exact decimals). */
export function plain(value) {
  const [type, inner] = Object.entries(value)[0];
  switch (type) {
    case "N": return String(Number(inner)) === inner ? Number(inner) : inner;
    case "S": case "B": case "BOOL": return inner;
    case "NULL": return null;
    case "SS": case "BS": return [...inner];
    case "NS": return inner.map((n) => plain({ N: n }));
    case "L": return inner.map(plain);
    case "M": return plainItem(inner);
    default: return inner;
  }
}

export function plainItem(item) {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, plain(value)]));
}

/** Plain JS value -> typed AttributeValue (what a user types as plain JSON). */
export function typed(value) {
  if (value === null) return { NULL: true };
  if (typeof value === "boolean") return { BOOL: value };
  if (typeof value === "number") return { N: String(value) };
  if (typeof value === "string") return { S: value };
  if (Array.isArray(value)) return { L: value.map(typed) };
  return { M: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typed(v)])) };
}

export const typeOf = (value) => Object.keys(value)[0];

/** Short text for a grid cell. */
export function show(value) {
  if (!value) return "";
  const [type, inner] = Object.entries(value)[0];
  switch (type) {
    case "N": case "S": case "B": return inner;
    case "BOOL": return String(inner);
    case "NULL": return "null";
    case "SS": case "NS": case "BS": return `{${inner.join(", ")}}`;
    default: return JSON.stringify(plain(value));
  }
}

/** A key's identity: table plus its attributes in name order. */
export function keyId(table, key) {
  const sorted = Object.keys(key).sort().map((name) => [name, key[name]]);
  return `${table}\u0000${JSON.stringify(sorted)}`;
}

/** The key attributes of an item, given a table's KeySchema. */
export function keyOf(item, keySchema) {
  return Object.fromEntries(keySchema.map(({ AttributeName }) => [AttributeName, item[AttributeName]]));
}

/** "VID#9f3a / STATS#TOTAL": a key as people read it. */
export function keyText(key, keySchema) {
  const names = keySchema ? keySchema.map((k) => k.AttributeName) : Object.keys(key);
  return names.filter((name) => key[name]).map((name) => show(key[name])).join(" / ");
}

/** A value typed in a box, as the AttributeValue type the user picked. */
export function parseTyped(type, text) {
  switch (type) {
    case "N": {
      const trimmed = text.trim();
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) {
        throw new Error(`"${text}" is not a number`);
      }
      return { N: trimmed };
    }
    case "S": return { S: text };
    case "BOOL": return { BOOL: /^(true|1|yes)$/i.test(text.trim()) };
    case "NULL": return { NULL: true };
    case "SS": return { SS: splitList(text) };
    case "NS": return { NS: splitList(text).map((n) => parseTyped("N", n).N) };
    case "JSON": return readValue(text);
    default: throw new Error(`unknown type ${type}`);
  }
}

function splitList(text) {
  return text.split(",").map((part) => part.trim()).filter(Boolean);
}

export function bytes(n) {
  if (n == null) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const count = (n) => (n == null ? "" : Number(n).toLocaleString("en-US"));

// ---- items as people type them: plain JSON or DynamoDB JSON ----

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A number as it was written in the JSON text (JSON.parse would round 0.1000000000000000000001). */
class Written {
  constructor(text) {
    this.text = text;
  }
}

/** JSON.parse keeping each number's exact text (where the browser gives the source). */
function parseExact(text) {
  return JSON.parse(text, (_key, value, context) => (typeof value === "number"
    ? new Written(context && context.source ? context.source : String(value)) : value));
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value)
  && !(value instanceof Written);
const strings = (value) => Array.isArray(value) && value.every((v) => typeof v === "string");

/** Whether `value` (as parseExact gives it) is one AttributeValue in DynamoDB JSON. */
function isAttributeValue(value) {
  if (!isObject(value)) return false;
  const entries = Object.entries(value);
  if (entries.length !== 1) return false;
  const [type, inner] = entries[0];
  switch (type) {
    case "S": case "B": return typeof inner === "string";
    case "N": return typeof inner === "string" && NUMBER.test(inner.trim());
    case "BOOL": return typeof inner === "boolean";
    case "NULL": return inner === true;
    case "SS": case "BS": return strings(inner) && inner.length > 0;
    case "NS": return strings(inner) && inner.length > 0 && inner.every((n) => NUMBER.test(n.trim()));
    case "L": return Array.isArray(inner) && inner.every(isAttributeValue);
    case "M": return isObject(inner) && Object.values(inner).every(isAttributeValue);
    default: return false;
  }
}

/** A plain JSON value as the toolkit maps it (tallydb.toolkit.convert): string S,
 * number N (its exact text), boolean BOOL, null NULL, array L, object M. */
function typedExact(value) {
  if (value === null) return { NULL: true };
  if (value instanceof Written) return { N: value.text };
  if (typeof value === "boolean") return { BOOL: value };
  if (typeof value === "string") return { S: value };
  if (Array.isArray(value)) return { L: value.map(typedExact) };
  return { M: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typedExact(v)])) };
}

/** Undo parseExact's number markers (DynamoDB JSON holds numbers as strings). */
function unmark(value) {
  if (value instanceof Written) return Number(value.text);
  if (Array.isArray(value)) return value.map(unmark);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unmark(v)]));
  return value;
}

export const DYNAMODB_JSON = "DynamoDB JSON";
export const PLAIN_JSON = "plain JSON";

/**
 * An item typed as JSON, in either form: {format, item} with item in DynamoDB
 * JSON. It is DynamoDB JSON when every attribute is an AttributeValue
 * ({"S": "x"}, {"N": "1"}, ...); otherwise plain JSON, typed as the toolkit types it.
 * Throws an Error that says what is wrong.
 */
export function readItem(text) {
  let value;
  try {
    value = parseExact(text);
  } catch (error) {
    throw new Error(`not valid JSON (${error.message})`);
  }
  if (!isObject(value)) throw new Error("an item is a JSON object of attributes");
  const attributes = Object.values(value);
  if (attributes.length && attributes.every(isAttributeValue)) {
    return { format: DYNAMODB_JSON, item: unmark(value) };
  }
  return { format: PLAIN_JSON, item: typedExact(value).M };
}

/** One value typed as JSON (plain or DynamoDB JSON), for a form's L or M row. */
export function readValue(text) {
  let value;
  try {
    value = parseExact(text);
  } catch (error) {
    throw new Error(`not valid JSON (${error.message})`);
  }
  return isAttributeValue(value) ? unmark(value) : typedExact(value);
}
