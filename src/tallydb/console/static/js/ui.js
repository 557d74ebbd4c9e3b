// Shared preact pieces: html, the router's link helper, code tabs, errors, flashing values.
import { html, useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { FORMATS } from "./codegen.js";
import "./widgets.js";

export { html };

export const href = (...parts) => `#/${parts.map(encodeURIComponent).join("/")}`;

/** Text that may wrap only after a space, "#", "/", ":", "," or "-" (a <wbr>
 * after each of the last five), never inside a token such as "PAY_PER_REQUEST". */
export function Breakable({ text }) {
  const parts = String(text ?? "").split(/(?<=[#/:,-])/);
  return html`${parts.map((part, i) => (i ? html`<wbr />${part}` : part))}`;
}

/** One line that ends in "…" when it does not fit; the whole value is its tooltip. */
export function Fit({ text, className = "" }) {
  return html`<span class=${`fit ${className}`} title=${text}>${text}</span>`;
}

/** A value that flashes when it changes after the first render. */
export function Val({ text, className = "", title }) {
  const ref = useRef(null);
  const previous = useRef(text);
  useEffect(() => {
    if (previous.current === text || !ref.current) return;
    previous.current = text;
    const el = ref.current;
    el.classList.remove("flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("flash");
  }, [text]);
  return html`<span ref=${ref} class=${`val ${className}`} title=${title}>${text}</span>`;
}

/** A row of tabs: arrow keys, Home and End move between them (WAI-ARIA tabs). */
export function Tabs({ label, tabs, value, onChange, children }) {
  const onKeyDown = (event) => {
    const at = tabs.findIndex(([v]) => v === value);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length][0];
    onChange(next);
    const list = event.currentTarget;
    requestAnimationFrame(() => list.querySelector('[aria-selected="true"]')?.focus());
  };
  return html`<div class="tabs">
    <div role="tablist" aria-label=${label} class="tablist" onKeyDown=${onKeyDown}>
      ${tabs.map(([v, name]) => html`<button type="button" role="tab" aria-selected=${v === value ? "true" : "false"}
        tabindex=${v === value ? "0" : "-1"} class=${v === value ? "tab active" : "tab"}
        onClick=${() => onChange(v)}>${name}</button>`)}
    </div>
    ${children}
  </div>`;
}

/** The same request in every format, each copyable. */
export function CodeTabs({ operation, request, label = "Request" }) {
  const [format, setFormat] = useState(0);
  const code = FORMATS[format][1](operation, request);
  return html`<div class="codetabs">
    <${Tabs} label=${`${label} as`} tabs=${FORMATS.map(([name], i) => [i, name])} value=${format} onChange=${setFormat}>
      <copy-button text=${code}></copy-button>
    </${Tabs}>
    <pre class="code" role="tabpanel" tabindex="0" aria-label=${`${label} as ${FORMATS[format][0]}`}
      data-format=${FORMATS[format][0]}><code>${code}</code></pre>
  </div>`;
}

/** A DynamoDB error as the server sent it: type and message; an unreachable
 * server is one line that says so. */
export function ErrorBox({ error }) {
  if (!error) return null;
  if (error.offline) {
    return html`<div class="error offline" role="alert"><span class="error-message">${error.message}</span></div>`;
  }
  const type = error.type || error.name || "Error";
  return html`<div class="error" role="alert">
    <strong class="error-type">${type}</strong>
    <span class="error-message">${error.message}</span>
  </div>`;
}

/** Run an async action, tracking busy/error state. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const run = async (fn) => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

export function Json({ value }) {
  return html`<pre class="code json" tabindex="0"><code>${JSON.stringify(value, null, 2)}</code></pre>`;
}
