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
    case "JSON": return JSON.parse(text);
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
