// The item editor: typed attribute rows (a form) or JSON, plain or DynamoDB
// JSON, with the typed item shown before saving; saved as a conditional PutItem.
import { useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { CodeTabs, ErrorBox, Json, Tabs, html, useAction } from "./ui.js";
import { DYNAMODB_JSON, keyId, keyOf, parseTyped, plain, readItem, readValue, show, typeOf } from "./values.js";

const ROW_TYPES = ["S", "N", "BOOL", "NULL", "SS", "NS", "L", "M", "B"];

const attributeType = (t, name) => (t.AttributeDefinitions.find((d) => d.AttributeName === name) || {}).AttributeType || "S";

/** PutItem of `draft` that succeeds only if the item is as it was when read
 * (or, for a new item, if no item has its key). */
export function saveRequest(table, t, base, draft) {
  const names = {};
  const values = {};
  const parts = [];
  const keyNames = t.KeySchema.map((k) => k.AttributeName);
  names["#k"] = keyNames[0];
  if (base) {
    parts.push("attribute_exists(#k)");
    Object.entries(base).filter(([name]) => !keyNames.includes(name)).forEach(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:a${i}`] = value;
      parts.push(`#a${i} = :a${i}`);
    });
  } else {
    parts.push("attribute_not_exists(#k)");
  }
  const request = {
    TableName: table,
    Item: draft,
    ConditionExpression: parts.join(" AND "),
    ExpressionAttributeNames: names,
  };
  if (Object.keys(values).length) request.ExpressionAttributeValues = values;
  request.ReturnValuesOnConditionCheckFailure = "ALL_OLD";
  request.ReturnConsumedCapacity = "TOTAL";
  return request;
}

/** ": play_count 5 → 6, title removed": how `now` differs from `base`. */
export function changes(base, now) {
  if (!now) return ": it was deleted";
  const names = [...new Set([...Object.keys(base), ...Object.keys(now)])];
  const differ = names.filter((name) => JSON.stringify(base[name]) !== JSON.stringify(now[name]))
    .map((name) => (!(name in now) ? `${name} removed`
      : !(name in base) ? `${name} added (${show(now[name])})`
      : `${name} ${show(base[name])} → ${show(now[name])}`));
  return differ.length ? `: ${differ.slice(0, 5).join(", ")}${differ.length > 5 ? ", …" : ""}` : "";
}

/** A value as a row's text: what the user would type for it. */
function rowText(value) {
  const type = typeOf(value);
  const inner = value[type];
  switch (type) {
    case "S": case "N": case "B": return inner;
    case "BOOL": return String(inner);
    case "NULL": return "";
    case "SS": case "NS": return inner.join(", ");
    default: {
      // Plain JSON when it reads back as the same value, else DynamoDB JSON.
      const asPlain = JSON.stringify(plain(value));
      try {
        if (JSON.stringify(readValue(asPlain)) === JSON.stringify(value)) return asPlain;
      } catch { /* DynamoDB JSON below */ }
      return JSON.stringify(value);
    }
  }
}

/** The rows of an item: the key attributes first, in the key's order. */
function rowsOf(item, t) {
  const keyNames = t.KeySchema.map((k) => k.AttributeName);
  const names = [...keyNames, ...Object.keys(item).filter((name) => !keyNames.includes(name))];
  return names.map((name) => {
    const value = item[name];
    const type = value ? typeOf(value) : attributeType(t, name);
    return { name, type, text: value ? rowText(value) : "", key: keyNames.includes(name) };
  });
}

/** One row's AttributeValue (throws, naming the attribute, on a value that does not parse). */
function rowValue(row) {
  const fail = (why) => { throw new Error(`${row.name}: ${why}`); };
  switch (row.type) {
    case "S": return { S: row.text };
    case "B":
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(row.text.trim())) fail("binary is typed as base64");
      return { B: row.text.trim() };
    case "BOOL": return { BOOL: row.text === "true" };
    case "NULL": return { NULL: true };
    case "L": case "M": {
      let value;
      try {
        value = readValue(row.text);
      } catch (error) {
        fail(error.message);
      }
      if (typeOf(value) !== row.type) fail(row.type === "L" ? "a list is a JSON array" : "a map is a JSON object");
      return value;
    }
    default:
      try {
        return parseTyped(row.type, row.text);
      } catch (error) {
        return fail(error.message);
      }
  }
}

function itemOfRows(rows) {
  const item = {};
  for (const row of rows) {
    if (!row.name) throw new Error("every attribute needs a name");
    if (row.name in item) throw new Error(`${row.name} is named twice`);
    item[row.name] = rowValue(row);
  }
  return item;
}

function blankItem(t) {
  return Object.fromEntries(t.KeySchema.map((k) => [k.AttributeName, { [attributeType(t, k.AttributeName)]: "" }]));
}

function Row({ row, index, onChange, onRemove }) {
  const label = row.name || `attribute ${index + 1}`;
  const set = (patch) => onChange({ ...row, ...patch });
  return html`<tr class="attrrow">
    <td>${row.key ? html`<span class="keycol">${row.name}</span>`
      : html`<input aria-label=${`Name of attribute ${index + 1}`} spellcheck=${false} value=${row.name}
          onInput=${(e) => set({ name: e.target.value })} />`}</td>
    <td><select aria-label=${`Type of ${label}`} value=${row.type} disabled=${row.key}
      onChange=${(e) => set({ type: e.target.value, text: e.target.value === "BOOL" ? "true" : row.text })}>
      ${(row.key ? [row.type] : ROW_TYPES).map((type) => html`<option value=${type}>${type}</option>`)}
    </select></td>
    <td class="grow">${row.type === "NULL" ? html`<span class="muted">null</span>`
      : row.type === "BOOL" ? html`<select aria-label=${`Value of ${label}`} value=${row.text}
          onChange=${(e) => set({ text: e.target.value })}><option>true</option><option>false</option></select>`
      : html`<input aria-label=${`Value of ${label}`} spellcheck=${false} class=${row.type === "N" ? "num" : ""}
          placeholder=${{ SS: "a, b", NS: "1, 2", L: "[1, \"a\"]", M: "{\"k\": 1}", B: "base64" }[row.type] || ""}
          value=${row.text} onInput=${(e) => set({ text: e.target.value })} />`}</td>
    <td class="actions">${!row.key && html`<button type="button" class="small" aria-label=${`Remove ${label}`}
      onClick=${onRemove}>Remove</button>`}</td>
  </tr>`;
}

export function Editor({ table, t, base, current, onSaved, onConflict, onCancel, onRestart }) {
  const start = base || blankItem(t);
  const [mode, setMode] = useState("form");
  const [rows, setRows] = useState(() => rowsOf(start, t));
  const [text, setText] = useState(() => JSON.stringify(start, null, 2));
  const [message, setMessage] = useState(null);
  const { busy, error, run } = useAction();

  let draft = null;
  let format = null;
  let problem = null;
  try {
    if (mode === "form") {
      draft = itemOfRows(rows);
    } else {
      ({ item: draft, format } = readItem(text));
    }
  } catch (err) {
    problem = err.message;
  }

  const switchTo = (next) => {
    if (next === mode) return;
    if (draft && next === "json") setText(JSON.stringify(draft, null, 2));
    if (draft && next === "form") setRows(rowsOf(draft, t));
    setMode(next);
  };
  const save = (event) => {
    event.preventDefault();
    if (!draft) {
      setMessage(`Not saved: ${problem}.`);
      return;
    }
    if (base && keyId(table, keyOf(draft, t.KeySchema)) !== keyId(table, keyOf(base, t.KeySchema))) {
      setMessage("Not saved: the key cannot change; create a new item instead.");
      return;
    }
    setMessage(null);
    run(async () => {
      try {
        await call("PutItem", saveRequest(table, t, base, draft));
        onSaved(draft);
      } catch (err) {
        if (err.type !== "ConditionalCheckFailedException") throw err;
        const now = err.body.Item || null;
        setMessage(base
          ? `Not saved: this item changed since you opened it for editing (another client wrote to it${changes(base, now)}). Nothing was overwritten; the current item is shown. Your edit is still here to apply again.`
          : "Not saved: an item with this key already exists.");
        onConflict(now);
      }
    });
  };
  const setRow = (i, row) => setRows(rows.map((r, j) => (j === i ? row : r)));
  return html`<form class="card editor" onSubmit=${save} aria-label=${base ? "Edit item" : "New item"}>
    <${Tabs} label="Edit as" value=${mode} onChange=${switchTo} tabs=${[["form", "Form"], ["json", "JSON"]]} />
    ${mode === "form" ? html`<table class="grid attrform" aria-label="Attributes to save">
        <thead><tr><th>Attribute</th><th>Type</th><th>Value</th><th><span class="sr-only">Remove</span></th></tr></thead>
        <tbody>${rows.map((row, i) => html`<${Row} row=${row} index=${i}
          onChange=${(next) => setRow(i, next)} onRemove=${() => setRows(rows.filter((_, j) => j !== i))} />`)}</tbody>
      </table>
      <p><button type="button" onClick=${() => setRows([...rows, { name: "", type: "S", text: "" }])}>Add attribute</button></p>`
    : html`<label>Item (JSON: plain or DynamoDB JSON)
      <textarea name="item" spellcheck=${false} rows=${Math.min(24, text.split("\n").length + 1)}
        value=${text} onInput=${(e) => setText(e.target.value)}></textarea></label>
      ${draft && html`<p class="hint readas" data-format=${format}>Read as ${format}${format === DYNAMODB_JSON ? "."
        : html`, typed as the toolkit types it (string S, number N, true/false BOOL, null NULL, array L, object M). It is saved as:`}</p>
        ${format !== DYNAMODB_JSON && html`<${Json} value=${draft} />`}`}`}
    ${problem && html`<p class="hint problem" role="status">Not ready to save: ${problem}.</p>`}
    <p class="hint">${base ? "Saved as a PutItem that only succeeds if the item is unchanged since you opened it, so no increment by anyone else is overwritten."
      : "Saved as a PutItem that only succeeds if no item has this key yet."}</p>
    ${message && html`<p class="error conflict" role="alert">${message}</p>`}
    ${base && current && !message && JSON.stringify(current) !== JSON.stringify(base) && html`<p class="notice stale" role="status">
      Changed since you started editing${changes(base, current)}. Saving now would be refused.</p>`}
    ${base && current && JSON.stringify(current) !== JSON.stringify(base) && html`<p>
      <button type="button" onClick=${onRestart}>Start again from the current item</button></p>`}
    <${ErrorBox} error=${error} />
    <div class="row"><button type="submit" class="primary" disabled=${busy}>Save</button>
      <button type="button" onClick=${onCancel}>Cancel</button></div>
    ${draft && html`<details><summary>The request Save sends</summary>
      <${CodeTabs} operation="PutItem" request=${saveRequest(table, t, base, draft)} /></details>`}
  </form>`;
}
