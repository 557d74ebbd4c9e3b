// The Stream tab: enable or disable the table's stream (UpdateTable
// StreamSpecification) and a live tail of its records, read with
// DescribeStream, GetShardIterator and GetRecords as any consumer reads them.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { changes } from "./item_editor.js";
import { STREAM_VIEWS } from "./tables.js";
import { Breakable, CodeTabs, ErrorBox, html, useAction } from "./ui.js";
import { keyText, show } from "./values.js";

const POLL_MS = 1000; // an idle shard is asked again this often, as the KCL does
const KEPT = 500; // records kept on screen (the counts cover all)
const SHOWN = 100;

/** What a record changed, in words. */
function summary(record) {
  const { OldImage: before, NewImage: after } = record.dynamodb;
  if (record.eventName === "MODIFY" && before && after) return changes(before, after).replace(/^: /, "") || "no net change";
  const image = after || before;
  if (!image) return "(keys only)";
  return Object.entries(image).slice(0, 4).map(([name, value]) => `${name} ${show(value)}`).join(", ");
}

/** Read the stream from `from` (TRIM_HORIZON or LATEST) until stopped, handing records to onRecords. */
function tail(streamArn, from, onRecords, onError, onRequest) {
  let stopped = false;
  const wait = () => new Promise((resolve) => { setTimeout(resolve, POLL_MS); });
  const read = async () => {
    const done = new Set();
    let first = true;
    while (!stopped) {
      const described = await call("DescribeStream", { StreamArn: streamArn });
      const shards = described.StreamDescription.Shards.filter((s) => !done.has(s.ShardId));
      const open = shards.filter((s) => !s.SequenceNumberRange.EndingSequenceNumber);
      const queue = first && from === "LATEST" ? open.slice(-1) : shards;
      first = false;
      for (const shard of queue) {
        const start = { StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: from === "LATEST" ? "LATEST" : "TRIM_HORIZON" };
        let iterator = (await call("GetShardIterator", start)).ShardIterator;
        while (iterator && !stopped) {
          const request = { ShardIterator: iterator, Limit: 1000 };
          onRequest(request);
          const page = await call("GetRecords", request);
          if (page.Records.length) onRecords(page.Records);
          iterator = page.NextShardIterator;
          if (!page.Records.length && iterator) await wait();
        }
        if (!iterator) done.add(shard.ShardId);
        if (stopped) return;
      }
      await wait();
    }
  };
  read().catch((error) => { if (!stopped) onError(error); });
  return () => { stopped = true; };
}

function StreamSettings({ t, reload }) {
  const spec = t.StreamSpecification || {};
  const [view, setView] = useState(spec.StreamViewType || "NEW_AND_OLD_IMAGES");
  const { busy, error, run } = useAction();
  const request = spec.StreamEnabled
    ? { TableName: t.TableName, StreamSpecification: { StreamEnabled: false } }
    : { TableName: t.TableName, StreamSpecification: { StreamEnabled: true, StreamViewType: view } };
  const send = () => run(async () => { await call("UpdateTable", request); reload(); });
  return html`<div class="card">
    <h2>Stream</h2>
    ${spec.StreamEnabled
      ? html`<p>Enabled, <strong>${spec.StreamViewType}</strong>. <span class="muted">ARN:</span>
          <code><${Breakable} text=${t.LatestStreamArn} /></code></p>
        <div class="row"><button type="button" disabled=${busy} onClick=${send}>Disable stream</button></div>`
      : html`<div class="row wrap"><label>View type <select name="StreamViewType" value=${view}
            onChange=${(e) => setView(e.target.value)}>${STREAM_VIEWS.map((v) => html`<option value=${v}>${v}</option>`)}</select></label>
          <button type="button" class="primary" disabled=${busy} onClick=${send}>Enable stream</button></div>`}
    <${ErrorBox} error=${error} />
    <details><summary>As code</summary><${CodeTabs} operation="UpdateTable" request=${request} /></details>
  </div>`;
}

function Tail({ t }) {
  const [from, setFrom] = useState("TRIM_HORIZON");
  const [paused, setPaused] = useState(false);
  const [records, setRecords] = useState([]);
  const [counts, setCounts] = useState({ INSERT: 0, MODIFY: 0, REMOVE: 0 });
  const [error, setError] = useState(null);
  const [lastRequest, setLastRequest] = useState(null);
  const arn = t.LatestStreamArn;
  useEffect(() => {
    setRecords([]);
    setCounts({ INSERT: 0, MODIFY: 0, REMOVE: 0 });
    setError(null);
    if (paused || !arn) return undefined;
    return tail(arn, from, (page) => {
      setCounts((c) => {
        const next = { ...c };
        for (const r of page) next[r.eventName] = (next[r.eventName] || 0) + 1;
        return next;
      });
      setRecords((kept) => [...page.slice().reverse(), ...kept].slice(0, KEPT));
    }, setError, setLastRequest);
  }, [arn, from, paused]);
  const keys = t.KeySchema;
  return html`<section class="card" aria-labelledby="tail-title">
    <div class="row wrap">
      <h2 id="tail-title">Records, live</h2>
      <span class="spacer"></span>
      <label>From <select name="ShardIteratorType" value=${from} onChange=${(e) => setFrom(e.target.value)}>
        <option value="TRIM_HORIZON">the oldest kept (TRIM_HORIZON)</option>
        <option value="LATEST">now on (LATEST)</option></select></label>
      <button type="button" onClick=${() => setPaused(!paused)}>${paused ? "Resume" : "Pause"}</button>
    </div>
    <p class="counts" aria-live="polite">${Object.entries(counts).map(([name, n]) => html`<span class="badge" data-event=${name}>${name} ${n}</span> `)}
      <span class="muted">${paused ? "paused" : "reading with GetRecords"}</span></p>
    <${ErrorBox} error=${error} />
    ${records.length === 0 ? html`<p class="empty">No records yet.</p>`
      : html`<div class="scroll"><table class="grid streamrecords" aria-label="Stream records">
        <thead><tr><th>Time</th><th>Event</th><th>Key</th><th>Change</th><th>Sequence number</th></tr></thead>
        <tbody>${records.slice(0, SHOWN).map((r) => html`<tr key=${r.dynamodb.SequenceNumber}>
          <td>${new Date(r.dynamodb.ApproximateCreationDateTime * 1000).toLocaleTimeString()}</td>
          <td class="event">${r.eventName}</td>
          <td>${keyText(r.dynamodb.Keys, keys)}</td>
          <td>${summary(r)}</td>
          <td class="num">${r.dynamodb.SequenceNumber}</td></tr>`)}</tbody></table></div>`}
    ${lastRequest && html`<details><summary>As code (the last GetRecords)</summary>
      <${CodeTabs} operation="GetRecords" request=${lastRequest} /></details>`}
  </section>`;
}

export function StreamTab({ t, reload }) {
  return html`<section aria-label="Stream">
    <${StreamSettings} t=${t} reload=${reload} />
    ${t.LatestStreamArn ? html`<${Tail} t=${t} />` : html`<p class="empty">This table has no stream: enable one to see its records.</p>`}
  </section>`;
}
