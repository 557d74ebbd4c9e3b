// The PartiQL editor: a statement and its ? parameters, checked by the
// server's own parser as you type (nothing runs), shown beside the JSON
// operation it runs as; Run sends ExecuteStatement and shows the items in the
// same grid as a table's items.
import { useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { DynamoError, call, parse } from "./api.js";
import { ItemsGrid, columns } from "./items.js";
import { CodeTabs, ErrorBox, Json, html } from "./ui.js";
import { readValue } from "./values.js";

const CHECK_DELAY_MS = 250;
const START = 'SELECT * FROM "videos" WHERE PK = ?';

/** How many ? a statement holds outside its quoted names and strings. */
export function placeholders(statement) {
  let count = 0;
  let quote = null;
  for (const c of statement) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "?") {
      count += 1;
    }
  }
  return count;
}

/** The key attributes of a table or one of its indexes, as the parse endpoint takes them. */
function keyAttributes(t, index) {
  const types = Object.fromEntries(t.AttributeDefinitions.map((d) => [d.AttributeName, d.AttributeType]));
  const found = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])].find((i) => i.IndexName === index);
  return (found || t).KeySchema.map((k) => [k.AttributeName, types[k.AttributeName]]);
}

export function PartiqlPage() {
  const [statement, setStatement] = useState(START);
  const [params, setParams] = useState(['"VID#9f3a"']);
  const [check, setCheck] = useState({ state: "idle" });
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);
  const tables = useRef(new Map()); // name -> DescribeTable's Table, for the plan
  const generation = useRef(0);

  const count = placeholders(statement);
  // one box a "?", those not typed in yet empty (no effect that could race what is typed)
  const boxes = Array.from({ length: count }, (_, i) => params[i] ?? "");
  const setParam = (i, value) => setParams((current) => {
    const next = [...current];
    while (next.length < i) next.push("");
    next[i] = value;
    return next;
  });
  let parameters = [];
  let problem = null;
  try {
    parameters = boxes.map((text, i) => {
      if (!text.trim()) throw new Error(`Give parameter ${i + 1}`);
      try {
        return readValue(text);
      } catch (error) {
        throw new Error(`Parameter ${i + 1} is ${error.message}`);
      }
    });
  } catch (error) {
    problem = error.message;
  }
  const request = { Statement: statement, ...(parameters.length ? { Parameters: parameters } : {}) };
  const requestJson = JSON.stringify(request);

  useEffect(() => {
    if (problem || !statement.trim()) {
      setCheck({ state: "local", message: problem || "Write a statement" });
      return undefined;
    }
    const mine = ++generation.current;
    setCheck((c) => ({ ...c, state: "checking" }));
    const timer = setTimeout(async () => {
      try {
        let answer = await parse(request);
        const table = answer.table;
        if (!tables.current.has(table)) {
          try {
            tables.current.set(table, (await call("DescribeTable", { TableName: table })).Table);
          } catch (error) {
            tables.current.set(table, null);
          }
        }
        const t = tables.current.get(table);
        if (t) answer = await parse({ ...request, Keys: { table, index: answer.index, attributes: keyAttributes(t, answer.index) } });
        if (mine === generation.current) setCheck({ state: "valid", answer, t });
      } catch (error) {
        if (mine !== generation.current) return;
        if (error instanceof DynamoError) setCheck({ state: "invalid", error });
        else setCheck({ state: "unreachable", error });
      }
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [requestJson, problem]);

  const run = async (token) => {
    setBusy(true);
    const sent = { ...request, ...(token ? { NextToken: token } : {}) };
    try {
      const response = await call("ExecuteStatement", sent);
      setResult({ request: sent, response });
      if (check.answer && check.answer.statement !== "Select") tables.current.delete(check.answer.table);
    } catch (error) {
      setResult({ request: sent, error });
    } finally {
      setBusy(false);
    }
  };
  const submit = (event) => { event.preventDefault(); run(); };
  const onKeyDown = (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit(event);
  };
  const { answer, t } = check;
  const items = result && result.response ? result.response.Items : [];
  const keySchema = t ? t.KeySchema : [];
  return html`<section aria-labelledby="partiql-title">
    <h1 id="partiql-title">PartiQL</h1>
    <p class="muted">A statement is checked by the server's own parser as you type (POST /console/api/parse),
      and shown as the JSON operation it runs as; nothing runs until you press Run (or Ctrl+Enter).</p>
    <div class="builder">
      <form class="card" aria-label="PartiQL statement" onSubmit=${submit}>
        <label>Statement <textarea name="Statement" rows="4" spellcheck=${false} value=${statement}
          aria-invalid=${check.state === "invalid" ? "true" : undefined} onKeyDown=${onKeyDown}
          onInput=${(e) => setStatement(e.target.value)}></textarea></label>
        ${count > 0 && html`<fieldset class="params"><legend>Parameters (each a JSON value: plain or DynamoDB JSON)</legend>
          ${boxes.map((text, i) => html`<label>? ${i + 1} <input name=${`param${i + 1}`} spellcheck=${false}
            value=${text} placeholder='"text", 42 or {"N": "42"}'
            onInput=${(e) => setParam(i, e.target.value)} /></label>`)}</fieldset>`}
        <div class="row"><span class="spacer"></span>
          <button type="submit" class="primary" disabled=${busy || check.state !== "valid"}>Run</button></div>
        <div class="runresult" aria-live="polite">
          ${result && result.error && html`<${ErrorBox} error=${result.error} />`}
          ${result && result.response && html`<p class="outcome ok" role="status">${`ExecuteStatement answered ${
            items.length} ${items.length === 1 ? "item" : "items"}${result.response.NextToken ? " (more to read)" : ""}.`}</p>`}
        </div>
      </form>
      <div class="card checkresult" aria-live="polite">
        <h2>Check</h2>
        <p class=${`verdict ${check.state}`} data-state=${check.state}>${{
          idle: "", checking: "Checking…",
          valid: answer ? `✓ Valid: a ${answer.statement.toUpperCase()} on ${answer.table}${answer.index ? `.${answer.index}` : ""}.` : "",
          invalid: "✗ The server would refuse this statement:",
          local: check.message, unreachable: check.error && check.error.message,
        }[check.state]}</p>
        ${check.state === "invalid" && html`<${ErrorBox} error=${check.error} />`}
        ${answer && answer.planned && html`<h2>Runs as ${answer.planned.operation}</h2>
          <div class="planned" data-operation=${answer.planned.operation}><${Json} value=${answer.planned.request} /></div>`}
        <h2>As code</h2>
        <${CodeTabs} operation="ExecuteStatement" request=${request} />
      </div>
    </div>
    ${result && result.response && html`
      <div class="gridbar"><span>${items.length} ${items.length === 1 ? "item" : "items"}</span><span class="spacer"></span>
        <button type="button" class="small" disabled=${!result.response.NextToken || busy}
          onClick=${() => run(result.response.NextToken)}>Next</button></div>
      ${items.length > 0 && html`<${ItemsGrid} table=${answer ? answer.table : ""} keySchema=${keySchema}
        items=${items} columns=${columns({ KeySchema: keySchema }, items)} />`}`}
  </section>`;
}
