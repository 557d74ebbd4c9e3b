// The Replicas tab of a global table: its regions and their status
// (DescribeTable's Replicas; UpdateTable's ReplicaUpdates adds or removes
// one), each replica's replication lag (/console/api/replication), and one
// item's attribute read in every region side by side (GetItem signed for
// each region), read again and again so a counter is seen to converge.
import { useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { REGION, call, replication } from "./api.js";
import { CodeTabs, ErrorBox, Fit, Val, html, useAction } from "./ui.js";
import { parseTyped, show } from "./values.js";

// How often the tab reads again: quickly while the regions differ or changes
// wait to be sent, slowly once everything has settled.
const UNSETTLED_MS = 500;
const SETTLED_MS = 2000;

/** The group's regions: this one first, then its replicas, as DescribeTable says. */
function groupOf(t) {
  return [{ RegionName: REGION, ReplicaStatus: t.TableStatus, own: true },
    ...(t.Replicas || [])];
}

/** Call ``tick`` now and then again after the delay it answers, until unmounted. */
function usePoll(tick, deps) {
  const timer = useRef(null);
  useEffect(() => {
    let stopped = false;
    const again = async () => {
      const delay = await tick();
      if (!stopped) timer.current = setTimeout(again, delay);
    };
    again();
    return () => { stopped = true; clearTimeout(timer.current); };
  }, deps);
}

function Regions({ table, t, reload, lag }) {
  const [region, setRegion] = useState("eu-west-1");
  const { busy, error, run } = useAction();
  const group = groupOf(t);
  const change = (update) => run(async () => {
    await call("UpdateTable", { TableName: table, ReplicaUpdates: [update] });
    await reload();
  });
  const request = { TableName: table, ReplicaUpdates: [{ Create: { RegionName: region } }] };
  const submit = (event) => {
    event.preventDefault();
    change({ Create: { RegionName: region } });
  };
  const mode = t.MultiRegionConsistency === "STRONG" ? "strong (MRSC)" : "eventual (MREC)";
  return html`<div class="card">
    <h2>Regions</h2>
    ${t.Replicas && t.Replicas.length
      ? html`<p>A global table (version ${t.GlobalTableVersion}), ${mode} consistency.</p>`
      : html`<p class="empty">Not a global table: it has no replica. Adding one needs
          <code>tallydb serve --separate-regions</code>.</p>`}
    <div class="scroll"><table class="grid" aria-label="Replicas">
      <thead><tr><th>Region</th><th>Status</th><th>Changes waiting</th><th>Lag</th>
        <th><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${group.map((replica) => {
        const sent = lag[replica.RegionName];
        return html`<tr key=${replica.RegionName} data-region=${replica.RegionName}>
          <td><${Fit} text=${replica.own ? `${replica.RegionName} (this one)` : replica.RegionName} /></td>
          <td class="status"><${Fit} text=${replica.ReplicaStatus} /></td>
          <td class="num pending">${sent ? sent.PendingChanges : ""}</td>
          <td class="num lag">${sent ? `${sent.LagSeconds.toFixed(1)} s` : ""}</td>
          <td class="actions">${!replica.own && html`<button type="button" class="small danger-outline"
            aria-label=${`Remove replica ${replica.RegionName}`} disabled=${busy}
            onClick=${() => change({ Delete: { RegionName: replica.RegionName } })}>Remove</button>`}</td>
        </tr>`;
      })}
      ${(t.GlobalTableWitnesses || []).map((witness) => html`<tr key=${witness.RegionName} data-region=${witness.RegionName}>
          <td><${Fit} text=${`${witness.RegionName} (witness)`} /></td>
          <td class="status"><${Fit} text=${witness.WitnessStatus} /></td><td></td><td></td><td></td></tr>`)}
      </tbody></table></div>
    <form class="row wrap" onSubmit=${submit} aria-label="Add a replica">
      <label>Region <input name="RegionName" required value=${region} onInput=${(e) => setRegion(e.target.value)} /></label>
      <button type="submit" class="primary" disabled=${busy}>Add replica</button>
    </form>
    <${ErrorBox} error=${error} />
    <details><summary>As code</summary><${CodeTabs} operation="UpdateTable" request=${request} /></details>
  </div>`;
}

function Compare({ table, t, regions, pending }) {
  const keys = t.KeySchema.map((k) => k.AttributeName);
  const types = Object.fromEntries(t.AttributeDefinitions.map((a) => [a.AttributeName, a.AttributeType]));
  const [form, setForm] = useState({ ...Object.fromEntries(keys.map((k) => [k, ""])), attribute: "play_count" });
  const [asked, setAsked] = useState(null);
  const [values, setValues] = useState(null);
  const { error, run } = useAction();
  const submit = (event) => {
    event.preventDefault();
    run(async () => {
      const key = Object.fromEntries(keys.map((k) => [k, parseTyped(types[k] || "S", form[k])]));
      setValues(null);
      setAsked({ key, attribute: form.attribute });
    });
  };
  const read = async () => {
    if (!asked) return SETTLED_MS;
    const found = await Promise.all(regions.map(async (region) => {
      try {
        const answer = await call("GetItem", { TableName: table, Key: asked.key, ConsistentRead: true }, region);
        const value = answer.Item && answer.Item[asked.attribute];
        return { region, value: value ? show(value) : "(none)" };
      } catch (failure) {
        return { region, value: `${failure.type || "Error"}: ${failure.message}` };
      }
    }));
    setValues(found);
    return new Set(found.map((f) => f.value)).size === 1 ? SETTLED_MS : UNSETTLED_MS;
  };
  usePoll(read, [asked, regions.join(" ")]);
  // Settled: every region holds the same value and no change waits to be sent.
  const same = values && new Set(values.map((v) => v.value)).size === 1 && pending === 0;
  return html`<form class="card" onSubmit=${submit} aria-labelledby="compare-title">
    <h2 id="compare-title">One value in every region</h2>
    <p>The item's attribute as each region's replica holds it (a strongly
      consistent GetItem in each region), read again and again: it has converged
      once every region holds the same value and no change waits to be sent.</p>
    <div class="row wrap">
      ${keys.map((k) => html`<label>${k} <input name=${k} required value=${form[k]}
        onInput=${(e) => setForm({ ...form, [k]: e.target.value })} /></label>`)}
      <label>Attribute <input name="attribute" required value=${form.attribute}
        onInput=${(e) => setForm({ ...form, attribute: e.target.value })} /></label>
      <button type="submit" class="primary">Compare</button>
    </div>
    <${ErrorBox} error=${error} />
    ${values && html`<div class="scroll"><table class="grid" aria-label="Value by region">
      <thead><tr>${values.map((v) => html`<th key=${v.region}>${v.region}</th>`)}</tr></thead>
      <tbody><tr>${values.map((v) => html`<td key=${v.region} class="num" data-region=${v.region}><${Val} text=${v.value} /></td>`)}</tr></tbody>
    </table></div>
    <p role="status" class="converge">${same ? "Converged: every region holds the same value."
      : "Replicating: the regions differ, or changes wait to be sent."}</p>`}
  </form>`;
}

export function ReplicasTab({ table, t, reload }) {
  const [lag, setLag] = useState({});
  const { error, run } = useAction();
  const changing = groupOf(t).some((r) => r.ReplicaStatus !== "ACTIVE");
  usePoll(async () => {
    const waiting = await run(async () => {
      const mine = (await replication()).Replicas.filter((r) => r.TableName === table);
      setLag(Object.fromEntries(mine.map((r) => [r.RegionName, r])));
      if (changing) await reload();
      return mine.reduce((sum, r) => sum + r.PendingChanges, 0);
    });
    return waiting || changing ? UNSETTLED_MS : SETTLED_MS;
  }, [table, changing]);
  const pending = Object.values(lag).reduce((sum, r) => sum + r.PendingChanges, 0);
  const regions = groupOf(t).filter((r) => r.ReplicaStatus === "ACTIVE").map((r) => r.RegionName);
  return html`<section aria-label="Replicas">
    <${ErrorBox} error=${error} />
    <${Regions} table=${table} t=${t} reload=${reload} lag=${lag} />
    ${t.Replicas && t.Replicas.length > 0
      && html`<${Compare} table=${table} t=${t} regions=${regions} pending=${pending} />`}
  </section>`;
}
