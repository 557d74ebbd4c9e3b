// Shared preact pieces: html, the router's link helper, code tabs, errors, flashing values.
import { html, useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { FORMATS } from "./codegen.js";
import "./widgets.js";

export { html };

export const href = (...parts) => `#/${parts.map(encodeURIComponent).join("/")}`;

/** A value that flashes when it changes after the first render. */
export function Val({ text, className = "" }) {
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
  return html`<span ref=${ref} class=${`val ${className}`}>${text}</span>`;
}

/** The same request in every format, each copyable. */
export function CodeTabs({ operation, request, label = "Request" }) {
  const [format, setFormat] = useState(0);
  const code = FORMATS[format][1](operation, request);
  return html`<div class="codetabs">
    <div class="tabs" role="tablist" aria-label=${`${label} as`}>
      ${FORMATS.map(([name], i) => html`<button type="button" role="tab"
        aria-selected=${i === format} class=${i === format ? "tab active" : "tab"}
        onClick=${() => setFormat(i)}>${name}</button>`)}
      <copy-button text=${code}></copy-button>
    </div>
    <pre class="code" data-format=${FORMATS[format][0]}><code>${code}</code></pre>
  </div>`;
}

/** A DynamoDB error as the server sent it: type and message. */
export function ErrorBox({ error }) {
  if (!error) return null;
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
  return html`<pre class="code json"><code>${JSON.stringify(value, null, 2)}</code></pre>`;
}
