// The update panel: one attribute, one action, an optional condition; it shows
// the exact UpdateItem request (and as code) before and after it is sent.
import { ErrorBox, CodeTabs, Json, html } from "./ui.js";
import { plainItem, parseTyped, show } from "./values.js";

export const ACTIONS = [
  ["ADD", "ADD (number or set)"],
  ["SET", "SET to value"],
  ["SET_IF_NOT_EXISTS", "SET if_not_exists"],
  ["SET_PLUS", "SET +"],
  ["SET_MINUS", "SET −"],
  ["REMOVE", "REMOVE"],
  ["DELETE", "DELETE from set"],
];

const CONDITIONS = ["", "=", "<>", "<", "<=", ">", ">=", "attribute_exists", "attribute_not_exists"];
const VALUE_TYPES = ["N", "S", "BOOL", "NULL", "SS", "NS", "JSON"];

export const blankForm = () => ({
  attribute: "", action: "ADD", type: "N", value: "1",
  condAttribute: "", condOp: "", condType: "N", condValue: "",
});

/** A box's text as the type picked for it; what is wrong names the box. */
function typed(box, type, text) {
  if (!text.trim() && !["S", "NULL", "BOOL"].includes(type)) throw new Error(`Type ${box}`);
  try {
    return parseTyped(type, text);
  } catch (error) {
    throw new Error(`${box[0].toUpperCase()}${box.slice(1)}: ${error.message}`);
  }
}

/** The UpdateItem request a form describes (throws, naming the box, on a value that does not parse). */
export function updateRequest(table, key, form) {
  if (!form.attribute) throw new Error("Choose an attribute");
  const names = { "#n": form.attribute };
  const values = {};
  const value = (placeholder) => {
    values[placeholder] = typed("the value", form.type, form.value);
    return placeholder;
  };
  const expression = {
    ADD: () => `ADD #n ${value(":d")}`,
    SET: () => `SET #n = ${value(":v")}`,
    SET_IF_NOT_EXISTS: () => `SET #n = if_not_exists(#n, ${value(":v")})`,
    SET_PLUS: () => `SET #n = #n + ${value(":d")}`,
    SET_MINUS: () => `SET #n = #n - ${value(":d")}`,
    REMOVE: () => "REMOVE #n",
    DELETE: () => `DELETE #n ${value(":v")}`,
  }[form.action]();
  const request = { TableName: table, Key: key, UpdateExpression: expression };
  if (form.condOp) {
    const attribute = form.condAttribute || form.attribute;
    let name = "#n";
    if (attribute !== form.attribute) {
      name = "#c";
      names[name] = attribute;
    }
    if (form.condOp.startsWith("attribute_")) {
      request.ConditionExpression = `${form.condOp}(${name})`;
    } else {
      values[":c"] = typed("the condition's value", form.condType, form.condValue);
      request.ConditionExpression = `${name} ${form.condOp} :c`;
    }
  }
  request.ExpressionAttributeNames = names;
  if (Object.keys(values).length) request.ExpressionAttributeValues = values;
  request.ReturnValues = "UPDATED_NEW";
  request.ReturnConsumedCapacity = "TOTAL";
  if (request.ConditionExpression) request.ReturnValuesOnConditionCheckFailure = "ALL_OLD";
  return request;
}

const units = (capacity) => {
  if (!capacity) return "";
  const n = capacity.CapacityUnits ?? capacity.WriteCapacityUnits;
  return n == null ? "" : `${n} write ${n === 1 ? "unit" : "units"}`;
};

/** What the last Send came back with: the values this request returned
 * (UPDATED_NEW), labelled as such, beside the item's live value now. */
function Outcome({ outcome, item }) {
  if (!outcome) return null;
  const { request, response, error } = outcome;
  const sent = html`<p class="sent">Sent <code class="expr" data-field="UpdateExpression">${request.UpdateExpression}</code>
    ${request.ConditionExpression && html` if <code class="expr">${request.ConditionExpression}</code>`}</p>`;
  if (error && error.type === "ConditionalCheckFailedException") {
    return html`<div class="outcome refused" role="status">${sent}
      <p><strong>ConditionalCheckFailed:</strong> the condition did not hold; nothing changed.</p>
      ${error.body.Item ? html`<p>The item now:</p><${Json} value=${plainItem(error.body.Item)} />`
        : html`<p>The item does not exist.</p>`}
    </div>`;
  }
  if (error) return html`<div class="outcome" role="status">${sent}<${ErrorBox} error=${error} /></div>`;
  const attributes = response.Attributes || {};
  return html`<div class="outcome ok" role="status">${sent}
    <dl class="newvalues">
      ${Object.entries(attributes).map(([name, v]) => html`<div><dt>${name} returned by this request</dt>
        <dd class="num" data-attribute=${name}>${show(v)}</dd></div>
        ${item && item[name] && show(item[name]) !== show(v) && html`<div><dt>${name} now (live)</dt>
          <dd class="num live" data-live=${name}>${show(item[name])}</dd></div>`}`)}
      ${!Object.keys(attributes).length && html`<div><dt>Returned</dt><dd>(nothing: removed)</dd></div>`}
      <div><dt>Consumed</dt><dd class="consumed">${units(response.ConsumedCapacity)}</dd></div>
    </dl>
  </div>`;
}

export function UpdatePanel({ table, itemKey, item, form, setForm, outcome, onSend, busy }) {
  const set = (patch) => setForm({ ...form, ...patch });
  let request = null;
  let problem = null;
  try {
    request = updateRequest(table, itemKey, form);
  } catch (error) {
    problem = error;
  }
  const needsValue = form.action !== "REMOVE";
  const submit = (event) => {
    event.preventDefault();
    if (request) onSend(request);
  };
  const attributes = Object.keys(item || {});
  return html`<section class="card panel" aria-labelledby="update-title">
    <h2 id="update-title">Update</h2>
    <form class="updateform" onSubmit=${submit}>
      <div class="row wrap">
        <label>Attribute <input name="attribute" list="attribute-names" required value=${form.attribute}
          onInput=${(e) => set({ attribute: e.target.value })} /></label>
        <datalist id="attribute-names">${attributes.map((a) => html`<option value=${a} />`)}</datalist>
        <label>Action <select name="action" value=${form.action} onChange=${(e) => set({ action: e.target.value })}>
          ${ACTIONS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
        </select></label>
        ${needsValue && html`<label>Value <span class="typed">
          <select aria-label="Value type" value=${form.type} onChange=${(e) => set({ type: e.target.value })}>
            ${VALUE_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
          </select>
          <input name="value" aria-label="Value" class=${form.type === "N" ? "num" : ""} value=${form.value}
            onInput=${(e) => set({ value: e.target.value })} /></span></label>`}
      </div>
      <div class="row wrap">
        <label>Condition <select name="condOp" value=${form.condOp} onChange=${(e) => set({ condOp: e.target.value })}>
          ${CONDITIONS.map((c) => html`<option value=${c}>${c || "none"}</option>`)}
        </select></label>
        ${form.condOp && html`<label>on attribute <input name="condAttribute" list="attribute-names"
          placeholder=${form.attribute} value=${form.condAttribute}
          onInput=${(e) => set({ condAttribute: e.target.value })} /></label>`}
        ${form.condOp && !form.condOp.startsWith("attribute_") && html`<label>Value <span class="typed">
          <select aria-label="Condition value type" value=${form.condType} onChange=${(e) => set({ condType: e.target.value })}>
            ${VALUE_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
          </select>
          <input name="condValue" aria-label="Condition value" value=${form.condValue} onInput=${(e) => set({ condValue: e.target.value })} /></span></label>`}
        <span class="spacer"></span>
        <button type="submit" class="primary" disabled=${!request || busy}>Send</button>
      </div>
    </form>
    <${Outcome} outcome=${outcome} item=${item} />
    ${problem && html`<p class="hint">${problem.message}</p>`}
    ${request && html`<div class="preview">
      <dl class="exprs">
        <div><dt>UpdateExpression</dt><dd><code>${request.UpdateExpression}</code></dd></div>
        ${request.ConditionExpression && html`<div><dt>ConditionExpression</dt><dd><code>${request.ConditionExpression}</code></dd></div>`}
        <div><dt>ExpressionAttributeNames</dt><dd><code>${JSON.stringify(request.ExpressionAttributeNames)}</code></dd></div>
        ${request.ExpressionAttributeValues && html`<div><dt>ExpressionAttributeValues</dt><dd><code>${JSON.stringify(request.ExpressionAttributeValues)}</code></dd></div>`}
      </dl>
      <details><summary>As code: JSON, boto3, AWS CLI, JavaScript, Java</summary>
        <${CodeTabs} operation="UpdateItem" request=${request} />
      </details>
    </div>`}
  </section>`;
}
