// The Monitor tab: a table's operational view as the server sees it, a
// second at a time over the last five minutes: requests a second by
// operation, consumed read and write units, throttles, p50/p99 latency.
// The server counts only while a console page is open (console/metrics.py).
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { Chart, palette } from "./chart.js";
import * as live from "./live.js";
import { html } from "./ui.js";

const WINDOW_S = 300;

/** The table's seconds as chart columns: every second of the window, 0 (or no
 * latency) where nothing was answered. */
function columns(seconds, table, now) {
  const byTime = new Map(seconds.filter((s) => s.tables[table]).map((s) => [s.t, s.tables[table]]));
  const operations = [...new Set([...byTime.values()].flatMap((n) => Object.keys(n.operations)))].sort();
  const xs = [];
  const ops = operations.map(() => []);
  const read = [];
  const write = [];
  const throttled = [];
  const p50 = [];
  const p99 = [];
  for (let t = now - WINDOW_S; t < now; t += 1) {
    const n = byTime.get(t);
    xs.push(t);
    operations.forEach((op, i) => ops[i].push(n ? n.operations[op] || 0 : 0));
    read.push(n ? n.read : 0);
    write.push(n ? n.write : 0);
    throttled.push(n ? n.throttled : 0);
    p50.push(n ? n.p50 : null);
    p99.push(n ? n.p99 : null);
  }
  return { operations, xs, ops, read, write, throttled, p50, p99, byTime };
}

const sum = (values) => values.reduce((a, b) => a + (b || 0), 0);

export function MonitorTab({ table }) {
  const [seconds, setSeconds] = useState(live.state.metrics);
  useEffect(() => live.on("metrics", (all) => setSeconds([...all])), []);
  const now = seconds.length ? seconds[seconds.length - 1].t + 1 : Math.floor(Date.now() / 1000);
  const c = columns(seconds, table, now);
  const colours = palette();
  const minute = (values) => sum(values.slice(-60));
  const requests = c.ops.reduce((total, values) => total + minute(values), 0);
  const last = [...c.byTime.values()].pop();
  return html`<section aria-label="Monitor" class="monitor">
    <p class="muted">As the server sees this table, a second at a time, while a console page is open
      (the server counts nothing when none is).</p>
    <dl class="facts" data-requests=${requests}>
      <div><dt>Requests, last minute</dt><dd class="num" data-minute="requests">${requests}</dd></div>
      <div><dt>Read units, last minute</dt><dd class="num">${minute(c.read).toFixed(1)}</dd></div>
      <div><dt>Write units, last minute</dt><dd class="num" data-minute="write">${minute(c.write).toFixed(1)}</dd></div>
      <div><dt>Throttled, last minute</dt><dd class="num" data-minute="throttled">${minute(c.throttled)}</dd></div>
      <div><dt>Latency p50 / p99, last busy second</dt><dd class="num">${last && last.p50 !== null ? `${last.p50} / ${last.p99} ms` : "—"}</dd></div>
    </dl>
    <div class="charts">
      <${Chart} label="Requests a second, by operation" data=${[c.xs, ...c.ops]}
        summary=${c.operations.map((op, i) => `${op} ${minute(c.ops[i])}`).join(", ") || "none in the last minute"}
        series=${c.operations.map((op, i) => ({ label: op, stroke: colours[i % colours.length], width: 1.5 }))} />
      <${Chart} label="Consumed capacity units a second" data=${[c.xs, c.read, c.write]}
        summary=${`${minute(c.read).toFixed(1)} read and ${minute(c.write).toFixed(1)} write units in the last minute`}
        series=${[{ label: "read units", stroke: colours[0], width: 1.5 }, { label: "write units", stroke: colours[1], width: 1.5 }]} />
      <${Chart} label="Throttled requests a second" data=${[c.xs, c.throttled]}
        summary=${`${minute(c.throttled)} in the last minute`}
        series=${[{ label: "throttled", stroke: colours[3], width: 1.5 }]} />
      <${Chart} label="Latency (ms)" data=${[c.xs, c.p50, c.p99]}
        summary=${last && last.p50 !== null ? `p50 ${last.p50} ms, p99 ${last.p99} ms in the last second with requests` : "no requests yet"}
        series=${[{ label: "p50", stroke: colours[0], width: 1.5, spanGaps: false }, { label: "p99", stroke: colours[2], width: 1.5 }]} />
    </div>
  </section>`;
}
