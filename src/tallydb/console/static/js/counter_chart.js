// A counter you can watch: one numeric attribute's value and its rate over
// the last minutes, from the change feed (so increments by any client show),
// with the seconds its partition was throttled marked (--emulate-limits).
import { useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { Chart, palette } from "./chart.js";
import * as live from "./live.js";
import { html } from "./ui.js";
import { keyId } from "./values.js";

const WINDOW_S = 300; // seconds drawn
const TICK_MS = 1000;

/**
 * Per second of the window: the value at its end, its change, and throttles.
 * The second still running has a value (the latest) but no change yet: its
 * few commits so far would draw the rate dropping every time.
 */
export function series(points, throttles, now) {
  const last = Math.floor(now);
  const first = Math.max(Math.floor(points.length ? points[0][0] : last), last - WINDOW_S);
  const xs = [];
  const values = [];
  const rates = [];
  const throttled = [];
  let i = 0;
  let value = null;
  let previous = null;
  for (let second = first; second <= last; second += 1) {
    while (i < points.length && points[i][0] < second + 1) value = points[i++][1];
    xs.push(second);
    values.push(value);
    rates.push(value === null || previous === null || second === last ? null : value - previous);
    const refused = throttles.get(second) || 0;
    throttled.push(refused ? refused : null);
    previous = value;
  }
  return [xs, values, rates, throttled];
}

export function CounterChart({ table, itemKey, attribute, item, onClose }) {
  const points = useRef([]); // [epoch seconds, value], in arrival order
  const throttles = useRef(new Map()); // epoch second -> requests refused
  const [exact, setExact] = useState(item && item[attribute] ? item[attribute].N : null);
  const [data, setData] = useState([[], [], [], []]);
  const id = keyId(table, itemKey);

  useEffect(() => {
    points.current = [];
    throttles.current = new Map();
    const start = item && item[attribute] && item[attribute].N;
    if (start !== undefined && start !== null) points.current.push([Date.now() / 1000, Number(start)]);
    const offItem = live.onItem(table, itemKey, (change) => {
      const value = change.new && change.new[attribute];
      if (!value || value.N === undefined) return;
      points.current.push([Date.now() / 1000, Number(value.N)]);
      setExact(value.N);
    });
    const offHot = live.on("hotkeys", (frame) => {
      const entry = frame.keys.find((e) => e.table === table && keyId(table, e.keys) === id);
      if (!entry || !entry.throttles) return;
      const now = Math.floor(Date.now() / 1000);
      entry.throttles.forEach((n, i) => { if (n) throttles.current.set(now - (entry.throttles.length - 1 - i), n); });
    });
    const draw = () => {
      const now = Date.now() / 1000;
      points.current = points.current.filter(([t]) => t >= now - WINDOW_S - 1);
      setData(series(points.current, throttles.current, now));
    };
    draw();
    const timer = setInterval(draw, TICK_MS);
    return () => { offItem(); offHot(); clearInterval(timer); };
  }, [id, attribute]);

  const [, values, rates, throttled] = data;
  const recent = rates.slice(-10).filter((r) => r !== null);
  const rate = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : 0;
  const refused = throttled.reduce((a, b) => a + (b || 0), 0);
  const last = values.length ? values[values.length - 1] : null;
  const [accent, good, , bad] = palette();
  return html`<section class="card counterchart" aria-labelledby="chart-title" data-attribute=${attribute}
      data-last=${last === null ? "" : String(last)}>
    <div class="row wrap">
      <h2 id="chart-title">${attribute}, live</h2>
      <dl class="newvalues">
        <div><dt>now</dt><dd class="num" data-value>${exact ?? "—"}</dd></div>
        <div><dt>a second (last 10 s)</dt><dd class="num" data-rate>${rate.toFixed(1)}</dd></div>
        ${refused > 0 && html`<div><dt>throttled</dt><dd class="num" data-throttled>${refused}</dd></div>`}
      </dl>
      <span class="spacer"></span>
      <button type="button" class="small" onClick=${onClose}>Close chart</button>
    </div>
    <${Chart} label=${`${attribute} over the last ${WINDOW_S / 60} minutes`}
      summary=${`${exact ?? "no value"} now, ${rate.toFixed(1)} a second${refused ? `, ${refused} throttled` : ""}`}
      data=${data}
      scales=${{ x: { time: true }, value: {}, rate: {} }}
      axes=${[{}, { scale: "value", label: attribute }, { scale: "rate", side: 1, label: "a second", grid: { show: false } }]}
      series=${[
        { label: attribute, scale: "value", stroke: accent, width: 2 },
        { label: "a second", scale: "rate", stroke: good, width: 1 },
        { label: "throttled", scale: "rate", stroke: bad, width: 0, points: { show: true, size: 7, fill: bad } },
      ]} />
  </section>`;
}
