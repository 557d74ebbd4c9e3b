// Items: a paged grid for Scan and Query, and one item's page (view, edit,
// delete, the update panel, "+1"), kept current by the live stream.
import { useEffect, useMemo, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { call, describeReady } from "./api.js";
import * as live from "./live.js";
import { Breakable, CodeTabs, ErrorBox, Json, Tabs, Val, html, href, useAction } from "./ui.js";
import { CounterChart } from "./counter_chart.js";
import { Editor, changes } from "./item_editor.js";
import { UpdatePanel, blankForm } from "./update_panel.js";
import { keyId, keyOf, keyText, plainItem, show, typeOf, typed } from "./values.js";

const PAGE_SIZE = 25;
const PAGE_SIZES = [10, 25, 50, 100];
const LOG_SIZE = 8;
const MAX_COLUMNS = 16;
const SORT_OPS = ["", "=", "<", "<=", ">", ">=", "begins_with", "between"];

function useDescription(table) {
  const [description, setDescription] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    describeReady(table).then(setDescription, setError);  // a table CREATING has no items yet
  }, [table]);
  return [description, error];
}

const attributeType = (t, name) => (t.AttributeDefinitions.find((d) => d.AttributeName === name) || {}).AttributeType || "S";

const itemHref = (table, key) => `${href("tables", table, "item")}?key=${encodeURIComponent(JSON.stringify(key))}`;

/** Scan or Query request for the form, one page from `start`. */
function readRequest(t, form, start) {
  const request = { TableName: t.TableName, Limit: Number(form.pageSize) || PAGE_SIZE };
  const names = {};
  const values = {};
  const index = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])]
    .find((i) => i.IndexName === form.index);
  if (index) request.IndexName = index.IndexName;
  const schema = index ? index.KeySchema : t.KeySchema;
  if (form.mode === "Query") {
    const hash = schema[0].AttributeName;
    names["#pk"] = hash;
    values[":pk"] = keyValue(attributeType(t, hash), form.pk);
    let condition = "#pk = :pk";
    const range = schema[1] && schema[1].AttributeName;
    if (range && form.skOp) {
      names["#sk"] = range;
      const type = attributeType(t, range);
      values[":sk"] = keyValue(type, form.sk);
      if (form.skOp === "begins_with") condition += " AND begins_with(#sk, :sk)";
      else if (form.skOp === "between") {
        values[":sk2"] = keyValue(type, form.sk2);
        condition += " AND #sk BETWEEN :sk AND :sk2";
      } else condition += ` AND #sk ${form.skOp} :sk`;
    }
    request.KeyConditionExpression = condition;
    if (form.descending) request.ScanIndexForward = false;
  }
  if (form.filter.trim()) {
    request.FilterExpression = form.filter.trim();
    for (const [, name] of form.filter.matchAll(/#([A-Za-z0-9_]+)/g)) names[`#${name}`] = name;
    if (form.filterValues.trim()) {
      const given = JSON.parse(form.filterValues);
      for (const [name, value] of Object.entries(given)) values[name] = typed(value);
    }
  }
  const projected = form.projection.split(",").map((p) => p.trim()).filter(Boolean);
  if (projected.length) {
    request.ProjectionExpression = projected.map((p, i) => {
      names[`#p${i}`] = p;
      return `#p${i}`;
    }).join(", ");
  }
  if (Object.keys(names).length) request.ExpressionAttributeNames = names;
  if (Object.keys(values).length) request.ExpressionAttributeValues = values;
  if (start) request.ExclusiveStartKey = start;
  return request;
}

const keyValue = (type, text) => (type === "N" ? { N: String(text).trim() } : { [type]: text });

/** The attribute names a read projects, or null for all. */
function projected(request) {
  if (!request.ProjectionExpression) return null;
  return new Set(request.ProjectionExpression.split(", ").map((p) => request.ExpressionAttributeNames[p]));
}

/** Whether a new item could be in a read's answer (a Query's partition; the filter is not judged). */
function couldRead(request, item) {
  if (!request.KeyConditionExpression || !item) return true;
  const value = item[request.ExpressionAttributeNames["#pk"]];
  return JSON.stringify(value) === JSON.stringify(request.ExpressionAttributeValues[":pk"]);
}

/** The grid's columns: keys first, then attributes in order of appearance. */
export function columns(t, items) {
  const names = [...t.KeySchema.map((k) => k.AttributeName)];
  for (const item of items) {
    for (const name of Object.keys(item)) if (!names.includes(name)) names.push(name);
  }
  return names.slice(0, MAX_COLUMNS);
}

/** The table's items tab: Scan or Query a page at a time, kept current live. */
export function ItemsTab({ table, t: described }) {
  const [form, setForm] = useState({
    mode: "Scan", index: "", pk: "", skOp: "", sk: "", sk2: "", descending: false,
    filter: "", filterValues: "", projection: "", pageSize: PAGE_SIZE,
  });
  // The description changes with every commit (its counts); the grid follows its shape only.
  const shape = JSON.stringify([described.KeySchema, (described.GlobalSecondaryIndexes || []).map((i) => i.IndexName),
    (described.LocalSecondaryIndexes || []).map((i) => i.IndexName)]);
  const t = useMemo(() => described, [shape]);
  const [selected, setSelected] = useState(new Set());
  const [pages, setPages] = useState([undefined]); // ExclusiveStartKey of each page read
  const [result, setResult] = useState(null);
  const [inserted, setInserted] = useState(0);
  const { busy, error, run } = useAction();
  const current = useRef({ form, pages, result });
  current.current = { form, pages, result };

  const read = (start, stack) => run(async () => {
    const request = readRequest(t, current.current.form, start);
    const response = await call(current.current.form.mode, request);
    setResult({ request, operation: current.current.form.mode, response, items: response.Items, removed: new Set() });
    setPages(stack);
    setInserted(0);
    setSelected(new Set());
  });
  useEffect(() => { read(undefined, [undefined]); }, [t]);

  useEffect(() => {
    if (!t) return undefined;
    const offChanges = live.on("changes", (changes) => {
      const mine = changes.filter((c) => c.table === table);
      const r = current.current.result;
      if (!mine.length || !r) return;
      const byKey = new Map(mine.map((c) => [keyId(table, c.keys), c]));
      const names = projected(r.request);
      const removed = new Set(r.removed);
      const items = r.items.map((item) => {
        const change = byKey.get(keyId(table, keyOf(item, t.KeySchema)));
        if (!change) return item;
        byKey.delete(keyId(table, change.keys));
        if (!change.new) {
          removed.add(keyId(table, change.keys));
          return item;
        }
        return names ? Object.fromEntries(Object.entries(change.new).filter(([name]) => names.has(name))) : change.new;
      });
      const unseen = [...byKey.values()].filter((c) => c.event === "INSERT" && couldRead(r.request, c.new));
      if (unseen.length) setInserted((n) => n + unseen.length);
      const next = { ...r, items, removed };
      current.current.result = next; // the next frame may come before the next render
      setResult(next);
    });
    const offResync = live.on("resync", () => {
      const { pages: stack } = current.current;
      read(stack[stack.length - 1], stack);
    });
    return () => { offChanges(); offResync(); };
  }, [t]);

  const set = (patch) => setForm({ ...form, ...patch });
  const submit = (event) => { event.preventDefault(); read(undefined, [undefined]); };
  const indexes = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])];
  const schema = (indexes.find((i) => i.IndexName === form.index) || t).KeySchema;
  const items = result ? result.items : [];
  const cols = columns(t, items);
  const next = result && result.response.LastEvaluatedKey;
  const keys = items.map((item) => keyOf(item, t.KeySchema));
  return html`<section aria-label="Items">
    <div class="row wrap tabbar">
      <a class="button primary" href=${`${href("tables", table, "item")}?new=1`}>New item</a>
      <span class="spacer"></span>
      ${result && html`<${Download} table=${table} items=${items} columns=${columns(t, items)} />`}
    </div>
    <form class="card readform" onSubmit=${submit} aria-label="Read items">
      <div class="row wrap">
        <div class="segmented" role="radiogroup" aria-label="Operation">
          ${["Scan", "Query"].map((mode) => html`<label class=${form.mode === mode ? "on" : ""}>
            <input type="radio" name="mode" value=${mode} checked=${form.mode === mode}
              onChange=${() => set({ mode })} />${mode}</label>`)}
        </div>
        <label>Index <select name="index" value=${form.index} onChange=${(e) => set({ index: e.target.value })}>
          <option value="">table</option>
          ${indexes.map((i) => html`<option value=${i.IndexName}>${i.IndexName}</option>`)}
        </select></label>
        ${form.mode === "Query" && html`
          <label>${schema[0].AttributeName} = <input name="pk" required value=${form.pk} onInput=${(e) => set({ pk: e.target.value })} /></label>
          ${schema[1] && html`<label>${schema[1].AttributeName} <select name="skOp" value=${form.skOp} onChange=${(e) => set({ skOp: e.target.value })}>
              ${SORT_OPS.map((op) => html`<option value=${op}>${op || "any"}</option>`)}</select></label>
            ${form.skOp && html`<input aria-label="Sort key value" name="sk" value=${form.sk} onInput=${(e) => set({ sk: e.target.value })} />`}
            ${form.skOp === "between" && html`<span>and</span><input aria-label="Sort key upper value" name="sk2" value=${form.sk2} onInput=${(e) => set({ sk2: e.target.value })} />`}
            <label class="check"><input type="checkbox" checked=${form.descending} onChange=${(e) => set({ descending: e.target.checked })} /> descending</label>`}`}
      </div>
      <div class="row wrap">
        <label class="grow">Filter <input name="filter" placeholder="#views > :min" value=${form.filter}
          onInput=${(e) => set({ filter: e.target.value })} /></label>
        <label>Filter values <input name="filterValues" placeholder='{":min": 10}' value=${form.filterValues}
          onInput=${(e) => set({ filterValues: e.target.value })} /></label>
        <label>Projection <input name="projection" placeholder="title, views" value=${form.projection}
          onInput=${(e) => set({ projection: e.target.value })} /></label>
        <label>Page size <select name="pageSize" value=${form.pageSize} onChange=${(e) => set({ pageSize: Number(e.target.value) })}>
          ${PAGE_SIZES.map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
        <button type="submit" class="primary" disabled=${busy}>Run</button>
      </div>
    </form>
    <${ErrorBox} error=${error} />
    ${inserted > 0 && html`<p class="notice" role="status">${inserted} new ${inserted === 1 ? "item" : "items"} since this page was read.
      <button type="button" class="small" onClick=${() => read(pages[pages.length - 1], pages)}>Show</button></p>`}
    ${result && html`
      <div class="gridbar">
        <span>${`${items.length} ${items.length === 1 ? "item" : "items"} on page ${pages.length} (${result.response.ScannedCount} read)`}</span>
        <span class="spacer"></span>
        ${selected.size > 0 && html`<${DeleteSelected} table=${table} keys=${keys.filter((k) => selected.has(keyId(table, k)))}
          onDone=${() => setSelected(new Set())} />`}
        <button type="button" class="small" disabled=${pages.length < 2 || busy}
          onClick=${() => read(pages[pages.length - 2], pages.slice(0, -1))}>Previous</button>
        <button type="button" class="small" disabled=${!next || busy}
          onClick=${() => read(next, [...pages, next])}>Next</button>
      </div>
      <${ItemsGrid} table=${table} keySchema=${t.KeySchema} items=${items} columns=${cols}
        removed=${result.removed} selected=${selected} onSelect=${setSelected} />
      ${!items.length && html`<p class="empty">No items on this page.</p>`}
      <details class="sentrequest"><summary>Request sent</summary>
        <${CodeTabs} operation=${result.operation} request=${result.request} /></details>`}
  </section>`;
}

/** Items in a grid: the key attributes first, the first cell a link to the
 * item; with `selected`, a checkbox on each row (and one for all). */
export function ItemsGrid({ table, keySchema, items, columns: cols, removed = new Set(), selected, onSelect }) {
  const keys = items.map((item) => keyOf(item, keySchema));
  const toggle = (id) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id); else next.add(id);
    onSelect(next);
  };
  return html`<div class="scroll"><table class="grid items" aria-label=${`Items of ${table}`}>
    <thead><tr>${selected && html`<td class="pick"><input type="checkbox" aria-label="Select every item on this page"
      checked=${items.length > 0 && selected.size === items.length}
      onChange=${(e) => onSelect(new Set(e.target.checked ? keys.map((k) => keyId(table, k)) : []))} /></td>`}
      ${cols.map((c) => {
        const first = items.find((item) => item[c]);
        const numeric = first && typeOf(first[c]) === "N";
        const isKey = keySchema.some((k) => k.AttributeName === c);
        return html`<th scope="col" class=${`${isKey ? "keycol" : ""} ${numeric ? "num" : ""}`}>${c}</th>`;
      })}</tr></thead>
    <tbody>${items.map((item, row) => {
      const key = keys[row];
      const linkable = keySchema.length > 0 && Object.values(key).every(Boolean);
      const id = keyId(table, key);
      return html`<tr key=${linkable ? id : row} class=${removed.has(id) ? "removed" : ""}>
        ${selected && html`<td class="pick"><input type="checkbox" aria-label=${`Select ${keyText(key, keySchema)}`}
          checked=${selected.has(id)} onChange=${() => toggle(id)} /></td>`}
        ${cols.map((c, i) => {
          const value = item[c];
          const cell = html`<${Val} text=${show(value)} title=${show(value)} />`;
          return html`<td class=${value && typeOf(value) === "N" ? "num" : ""} data-attribute=${c}>
            ${i === 0 && linkable ? html`<a href=${itemHref(table, key)}>${cell}</a>` : cell}</td>`;
        })}
      </tr>`;
    })}</tbody>
  </table></div>`;
}

/** Delete the chosen items together: one TransactWriteItems (all or none). */
function DeleteSelected({ table, keys, onDone }) {
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();
  const request = { TransactItems: keys.map((Key) => ({ Delete: { TableName: table, Key } })) };
  const remove = () => run(async () => {
    await call("TransactWriteItems", request);
    setConfirming(false);
    onDone();
  });
  const n = `${keys.length} ${keys.length === 1 ? "item" : "items"}`;
  return html`<span class="confirm">${confirming
    ? html`Delete ${n} in one transaction?
        <button type="button" class="small danger" disabled=${busy} onClick=${remove}>Delete ${n}</button>
        <button type="button" class="small" onClick=${() => setConfirming(false)}>Keep them</button>
        <details class="inline"><summary>As code</summary><${CodeTabs} operation="TransactWriteItems" request=${request} /></details>`
    : html`<button type="button" class="small danger-outline" onClick=${() => setConfirming(true)}>Delete selected (${keys.length})…</button>`}
    <${ErrorBox} error=${error} /></span>`;
}

/** The page of items as a file: JSON lines of DynamoDB JSON, or CSV of their plain values. */
function Download({ table, items, columns: cols }) {
  const save = (kind) => {
    const text = kind === "json" ? items.map((item) => JSON.stringify(item)).join("\n") + "\n"
      : [cols, ...items.map((item) => cols.map((c) => (item[c] ? show(item[c]) : "")))]
        .map((row) => row.map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(",")).join("\n") + "\n";
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: kind === "json" ? "application/json" : "text/csv" }));
    link.download = `${table}.${kind === "json" ? "jsonl" : "csv"}`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  };
  return html`<span class="downloads">Download this page:
    <button type="button" class="small" onClick=${() => save("json")}>JSON</button>
    <button type="button" class="small" onClick=${() => save("csv")}>CSV</button></span>`;
}

/** "created with play_count 0, title …": what an INSERT wrote. */
function created(item) {
  const shown = Object.entries(item).slice(0, 5).map(([name, value]) => `${name} ${show(value)}`);
  return `created with ${shown.join(", ")}${Object.keys(item).length > 5 ? ", …" : ""}`;
}

/** The latest commits to this item, as the live stream reported them. */
function ChangeLog({ log }) {
  return html`<section class="changelog" aria-label="Recent commits">
    <h2>Recent commits <span class="muted small">(live, by any client)</span></h2>
    ${log.length === 0 ? html`<p class="muted">None since you opened this item.</p>`
      : html`<ol>${log.map((entry) => html`<li>
        <time>${entry.at.toLocaleTimeString()}</time>
        <span class="event">${entry.event}</span>
        <span class="diff">${entry.diff || (entry.event === "REMOVE" ? "deleted" : "no net change")}</span>
        ${entry.count > 1 && html`<span class="badge">${entry.count} commits</span>`}
      </li>`)}</ol>`}
  </section>`;
}

export function ItemPage({ table, keyText: keyJson, watch: watched = "" }) {
  const [t, describeError] = useDescription(table);
  const isNew = !keyJson;
  let itemKey = null;
  try {
    itemKey = keyJson ? JSON.parse(keyJson) : null;
  } catch { /* shown below */ }
  const [item, setItem] = useState(undefined);
  const [view, setView] = useState("attributes");
  const [editing, setEditing] = useState(isNew ? { base: null } : null);
  const [form, setForm] = useState(blankForm());
  const [outcome, setOutcome] = useState(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [watch, setWatch] = useState(watched);
  const { busy, error, run } = useAction();
  const queue = useRef(Promise.resolve());
  const [log, setLog] = useState([]);
  // The last image the server reported (read or live): what each commit is compared with.
  const liveBase = useRef(null);

  const load = () => itemKey && run(async () => {
    const response = await call("GetItem", { TableName: table, Key: itemKey, ConsistentRead: true });
    liveBase.current = response.Item || null;
    setItem(response.Item || null);
  });
  useEffect(() => { load(); }, [keyJson]);
  useEffect(() => {
    if (!itemKey) return undefined;
    const offItem = live.onItem(table, itemKey, (change) => {
      const before = liveBase.current;
      liveBase.current = change.new || null;
      const diff = !change.new ? ""
        : change.event === "INSERT" ? created(change.new)
        : changes(before || {}, change.new).replace(/^: /, "");
      setLog((log) => [{ at: new Date(), event: change.event, count: change.count || 1, diff }, ...log].slice(0, LOG_SIZE));
      setItem(change.new || null);
    });
    const offResync = live.on("resync", load);
    return () => { offItem(); offResync(); };
  }, [keyJson]);

  // Sends go one after another, so replies apply in the order they were pressed.
  const send = (request) => {
    queue.current = queue.current.then(async () => {
      try {
        const response = await call("UpdateItem", request);
        setOutcome({ request, response });
        if (response.Attributes) setItem((current) => ({ ...(current || {}), ...response.Attributes }));
        else setItem((current) => {
          const { [request.ExpressionAttributeNames["#n"]]: _removed, ...rest } = current || {};
          return request.UpdateExpression.startsWith("REMOVE") ? rest : current;
        });
      } catch (err) {
        setOutcome({ request, error: err });
        if (err.body && err.body.Item) setItem(err.body.Item);
      }
    });
  };
  const plusOne = (name) => {
    const next = { ...blankForm(), attribute: name, action: "ADD", type: "N", value: "1" };
    setForm(next);
    send({
      TableName: table, Key: itemKey, UpdateExpression: "ADD #n :d",
      ExpressionAttributeNames: { "#n": name }, ExpressionAttributeValues: { ":d": { N: "1" } },
      ReturnValues: "UPDATED_NEW", ReturnConsumedCapacity: "TOTAL",
    });
  };
  const remove = () => run(async () => {
    await call("DeleteItem", { TableName: table, Key: itemKey });
    location.hash = href("tables", table, "items");
  });

  if (describeError) return html`<${ErrorBox} error=${describeError} />`;
  if (!isNew && !itemKey) return html`<p class="error">This link's key is not valid JSON.</p>`;
  if (!t) return html`<p class="muted">Loading…</p>`;
  const title = isNew ? "New item" : keyText(itemKey, t.KeySchema);
  const keyNames = t.KeySchema.map((k) => k.AttributeName);
  return html`<section aria-labelledby="item-title">
    <nav class="crumbs" aria-label="Breadcrumbs"><a href="#/tables">Tables</a> / <a href=${href("tables", table)}>${table}</a> / <a href=${href("tables", table, "items")}>items</a> / <span><${Breakable} text=${title} /></span></nav>
    <div class="heading">
      <h1 id="item-title"><${Breakable} text=${title} /></h1>
      ${!isNew && item && !editing && html`<button type="button" onClick=${() => setEditing({ base: item, since: Date.now() })}>Edit</button>`}
      ${!isNew && item && (confirmDelete
        ? html`<span class="confirm">Delete this item?
            <button type="button" class="danger" onClick=${remove}>Delete item</button>
            <button type="button" onClick=${() => setConfirmDelete(false)}>Keep it</button></span>`
        : html`<button type="button" class="danger-outline" onClick=${() => setConfirmDelete(true)}>Delete…</button>`)}
    </div>
    <${ErrorBox} error=${error} />
    ${editing && html`<${Editor} key=${editing.since} table=${table} t=${t} base=${editing.base} current=${item}
      onRestart=${() => setEditing({ base: item, since: Date.now() })}
      onSaved=${(draft) => {
        setEditing(null);
        if (isNew) location.hash = itemHref(table, keyOf(draft, t.KeySchema));
        else load();
      }}
      onConflict=${(now) => { if (!isNew) setItem(now); }}
      onCancel=${() => { setEditing(null); if (isNew) history.back(); }} />`}
    ${!isNew && item === null && html`<p class="empty">No item has this key (it may have been deleted).</p>`}
    ${!isNew && item && watch && html`<${CounterChart} table=${table} itemKey=${itemKey} attribute=${watch}
      item=${item} onClose=${() => setWatch("")} />`}
    ${!isNew && item && html`<div class="itemlayout">
      <section class="card" aria-label="Item">
        <${Tabs} label="Show item as" value=${view} onChange=${setView}
          tabs=${[["attributes", "Attributes"], ["typed", "DynamoDB JSON"], ["plain", "Plain JSON"]]} />
        ${view === "attributes" && html`<table class="grid attrs" aria-label="Attributes">
          <thead><tr><th>Attribute</th><th class="typecol">Type</th><th class="num">Value</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${Object.entries(item).map(([name, value]) => {
            const type = typeOf(value);
            const isKey = keyNames.includes(name);
            return html`<tr data-attribute=${name}>
              <th scope="row" class=${isKey ? "keycol" : ""}>${name}</th><td class="typecol">${type}</td>
              <td class=${type === "N" ? "num value" : "value"}><${Val} text=${show(value)}
                className=${/\s/.test(show(value)) ? "" : "fit"} title=${/\s/.test(show(value)) ? undefined : show(value)} /></td>
              <td class="actions">
                ${type === "N" && !isKey && html`<button type="button" class="small plusone" aria-label=${`+1 ${name}`}
                  onClick=${() => plusOne(name)}>+1</button>`}
                ${type === "N" && html`<button type="button" class="small" aria-label=${`Chart ${name}`}
                  aria-pressed=${watch === name ? "true" : "false"} onClick=${() => setWatch(watch === name ? "" : name)}>Chart</button>`}
                ${!isKey && html`<button type="button" class="small" aria-label=${`Update ${name}`}
                  onClick=${() => setForm({ ...blankForm(), attribute: name, action: type === "N" ? "ADD" : "SET", type: type === "N" ? "N" : type === "S" ? "S" : "JSON", value: type === "N" ? "1" : type === "S" ? value.S : JSON.stringify(value) })}>Update…</button>`}
              </td></tr>`;
          })}</tbody></table>`}
        ${view === "typed" && html`<${Json} value=${item} />`}
        ${view === "plain" && html`<${Json} value=${plainItem(item)} />`}
        <${ChangeLog} log=${log} />
      </section>
      <${UpdatePanel} table=${table} itemKey=${itemKey} item=${item} form=${form} setForm=${setForm}
        outcome=${outcome} onSend=${send} busy=${busy} />
    </div>`}
  </section>`;
}
