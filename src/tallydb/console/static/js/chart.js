// A time-series chart (uPlot, vendored): the counter chart and the
// operational view draw with it.
import uPlot from "../vendor/uplot-1.6.32/uPlot.esm.js";
import { useEffect, useRef } from "../vendor/htm-preact-3.1.1.js";
import { html } from "./ui.js";

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * The time axis: clock times to the second, so its ticks are whole seconds
 * apart (finer ones would print the same second twice).
 */
export const TIME_AXIS = {
  space: 90,
  incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400],
  values: (_plot, ticks) => ticks.map((t) => new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })),
};

/** The page's colours for a chart's lines, in order (read from app.css). */
export const palette = () => [css("--accent"), css("--good"), css("--warn"), css("--bad"), css("--muted")];

/**
 * A chart of `data` ([xs (epoch seconds), ...one array per series]); `series`
 * are uPlot series options (label, stroke, scale, points...), `scales` and
 * `axes` uPlot's. `label` names it for assistive technology, which gets the
 * chart as one image; `summary` says in words what it shows now.
 */
export function Chart({ label, summary, series, data, scales, axes, height = 200 }) {
  const box = useRef(null);
  const plot = useRef(null);
  const shape = JSON.stringify(series.map((s) => [s.label, s.scale]));
  useEffect(() => {
    const element = box.current;
    const opts = {
      width: Math.max(200, element.clientWidth), height, series: [{}, ...series],
      scales: scales || { x: { time: true } }, legend: { show: true, live: false },
      axes: [{ ...TIME_AXIS, ...((axes && axes[0]) || {}) }, ...(axes ? axes.slice(1) : [{}])],
      cursor: { drag: { x: false, y: false } },
    };
    plot.current = new uPlot(opts, data, element);
    const resize = () => plot.current.setSize({ width: Math.max(200, element.clientWidth), height });
    addEventListener("resize", resize);
    return () => { removeEventListener("resize", resize); plot.current.destroy(); plot.current = null; };
  }, [shape]);
  useEffect(() => { if (plot.current) plot.current.setData(data); }, [data]);
  return html`<figure class="chart">
    <div ref=${box} role="img" aria-label=${`${label}: ${summary}`}></div>
    <figcaption class="muted">${label}: ${summary}</figcaption>
  </figure>`;
}
