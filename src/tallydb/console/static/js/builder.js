// The expression builder: the four update clauses and a condition, checked by
// the server's own parser as you type (nothing runs), copyable as code.
import { useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { DynamoError, call, parse } from "./api.js";
import { CodeTabs, ErrorBox, Json, html } from "./ui.js";
import { readItem, show } from "./values.js";

const CLAUSES = ["SET", "REMOVE", "ADD", "DELETE"];
const CHECK_DELAY_MS = 250;

const START = {
  SET: "", REMOVE: "", ADD: "#n :one", DELETE: "",
  condition: "attribute_exists(#pk)",
  names: '{"#n": "play_count", "#pk": "PK"}',
  values: '{":one": {"N": "1"}}',
  table: "", key: '{"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}',
};

/** The request fields the form composes, or the reason it cannot. */
function compose(form) {
  const fields = {};
  // Where each clause's text starts in the UpdateExpression, to find which one holds a bad token.
  const spans = {};
  let update = "";
  for (const clause of CLAUSES.filter((c) => form[c].trim())) {
    if (update) update += " ";
    const start = update.length + clause.length + 1;
    update += `${clause} ${form[clause].trim()}`;
    spans[clause] = [start, update.length];
  }
  if (update) fields.UpdateExpression = update;
  if (form.condition.trim()) fields.ConditionExpression = form.condition.trim();
  if (form.names.trim()) {
    try {
      fields.ExpressionAttributeNames = JSON.parse(form.names);
    } catch (error) {
      return { fields, spans, problem: `ExpressionAttributeNames is not valid JSON: ${error.message}` };
    }
  }
  if (form.values.trim()) {
    try {
      fields.ExpressionAttributeValues = readItem(form.values).item;
    } catch (error) {
      return { fields, spans, problem: `ExpressionAttributeValues is ${error.message}` };
    }
  }
  return { fields, spans, problem: update ? null : "Write at least one clause" };
}

/** The text of one field with the offending token marked. */
function Marked({ text, start, end }) {
  if (start == null || end == null || end < start) return html`<code>${text}</code>`;
  return html`<code>${text.slice(0, start)}<mark class="bad">${text.slice(start, end) || " "}</mark>${text.slice(end)}</code>`;
}

export function BuilderPage() {
  const [form, setForm] = useState(START);
  const [check, setCheck] = useState({ state: "idle" });
  const [sent, setSent] = useState(null);
  const generation = useRef(0);
  const { fields, spans, problem } = compose(form);
  const fieldsJson = JSON.stringify(fields);

  useEffect(() => {
    if (problem) {
      setCheck({ state: "local", message: problem });
      return undefined;
    }
    const mine = ++generation.current;
    setCheck((c) => ({ ...c, state: "checking" }));
    const timer = setTimeout(async () => {
      try {
        await parse(fields);
        if (mine === generation.current) setCheck({ state: "valid" });
      } catch (error) {
        if (mine !== generation.current) return;
        if (error instanceof DynamoError) setCheck({ state: "invalid", error, detail: error.body });
        else setCheck({ state: "unreachable", message: error.message });
      }
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [fieldsJson, problem]);

  const set = (patch) => { setForm({ ...form, ...patch }); setSent(null); };
  let key = null;
  try {
    key = form.key.trim() ? readItem(form.key).item : null;
  } catch { /* the Send button stays off */ }
  const request = { TableName: form.table || "TABLE", Key: key || {}, ...fields, ReturnValues: "UPDATED_NEW" };
  const canSend = check.state === "valid" && form.table && key;
  const send = async () => {
    try {
      setSent({ response: await call("UpdateItem", request) });
    } catch (error) {
      setSent({ error });
    }
  };
  const detail = check.detail || {};
  const marked = (field) => (detail.expression === field ? detail : {});
  const invalid = (clause) => check.state === "invalid" && detail.expression === "UpdateExpression"
    && spans[clause] && detail.start >= spans[clause][0] - clause.length - 1 && detail.start <= spans[clause][1];
  return html`<section aria-labelledby="builder-title">
    <h1 id="builder-title">Expression builder</h1>
    <p class="muted">Compose an UpdateItem. Each change is checked by the server's own parser
      (POST /console/api/parse): nothing is read or written until you press Send.</p>
    <div class="builder">
      <form class="card" aria-label="Expression" onSubmit=${(e) => e.preventDefault()}>
        ${CLAUSES.map((clause) => html`<label class="clause"><span class="kw">${clause}</span>
          <input name=${clause} spellcheck=${false} value=${form[clause]} aria-invalid=${invalid(clause) ? "true" : undefined}
            placeholder=${{ SET: "#n = #n + :one, #t = :now", REMOVE: "#old", ADD: "#n :one", DELETE: "#tags :gone" }[clause]}
            onInput=${(e) => set({ [clause]: e.target.value })} /></label>`)}
        <label class="clause"><span class="kw">Condition</span>
          <input name="ConditionExpression" spellcheck=${false} value=${form.condition}
            aria-invalid=${check.state === "invalid" && detail.expression === "ConditionExpression" ? "true" : undefined}
            placeholder="attribute_exists(#pk)" onInput=${(e) => set({ condition: e.target.value })} /></label>
        <label>ExpressionAttributeNames
          <textarea name="ExpressionAttributeNames" rows="3" spellcheck=${false} value=${form.names}
            onInput=${(e) => set({ names: e.target.value })}></textarea></label>
        <label>ExpressionAttributeValues (plain or DynamoDB JSON)
          <textarea name="ExpressionAttributeValues" rows="3" spellcheck=${false} value=${form.values}
            onInput=${(e) => set({ values: e.target.value })}></textarea></label>
        <div class="row wrap">
          <label>Table <input name="table" value=${form.table} onInput=${(e) => set({ table: e.target.value })} /></label>
          <label class="grow">Key (plain or DynamoDB JSON) <input name="key" spellcheck=${false} value=${form.key}
            onInput=${(e) => set({ key: e.target.value })} /></label>
          <button type="button" class="primary" disabled=${!canSend} onClick=${send}>Send</button>
        </div>
        <div class="sendresult" aria-live="polite">${sent && (sent.error ? html`<${ErrorBox} error=${sent.error} />`
          : html`<div class="outcome ok" role="status"><p>Sent. The server answered${
            sent.response.Attributes ? " with the new values (UPDATED_NEW):" : "."}</p>
            ${sent.response.Attributes && html`<dl class="newvalues">${Object.entries(sent.response.Attributes)
              .map(([name, value]) => html`<div><dt>${name}</dt><dd class="num" data-attribute=${name}>${show(value)}</dd></div>`)}</dl>`}
            <details><summary>The whole answer</summary><${Json} value=${sent.response} /></details></div>`)}</div>
      </form>
      <div class="card checkresult" aria-live="polite">
        <h2>Check</h2>
        <p class=${`verdict ${check.state}`} data-state=${check.state}>${{
          idle: "", checking: "Checking…", valid: "✓ Valid: DynamoDB's parser accepts these together.",
          invalid: "✗ The server would refuse this request:",
          local: check.message, unreachable: `Could not check: ${check.message}`,
        }[check.state]}</p>
        ${check.state === "invalid" && html`<${ErrorBox} error=${check.error} />`}
        <dl class="exprs">
          ${fields.UpdateExpression && html`<div><dt>UpdateExpression</dt>
            <dd data-field="UpdateExpression"><${Marked} text=${fields.UpdateExpression} ...${marked("UpdateExpression")} /></dd></div>`}
          ${fields.ConditionExpression && html`<div><dt>ConditionExpression</dt>
            <dd data-field="ConditionExpression"><${Marked} text=${fields.ConditionExpression} ...${marked("ConditionExpression")} /></dd></div>`}
        </dl>
        <h2>As code</h2>
        <${CodeTabs} operation="UpdateItem" request=${request} />
      </div>
    </div>
  </section>`;
}
