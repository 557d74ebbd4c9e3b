// The console's shell: hash routes, navigation, the access key prompt, live status.
import { render, useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { info, listTables, onKeyChange, setKey, storedKey } from "./api.js";
import { setServerInfo } from "./codegen.js";
import * as live from "./live.js";
import { html } from "./ui.js";
import { TablesPage } from "./tables.js";
import { TablePage } from "./table_page.js";
import { ItemPage } from "./items.js";
import { BuilderPage } from "./builder.js";
import { PartiqlPage } from "./partiql.js";
import { HotKeysPage } from "./hotkeys.js";
import { CountersPage } from "./counters.js";

/** "#/tables/videos/item?key=..." -> {parts: ["tables", "videos", "item"], query}. */
function route() {
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, query: new URLSearchParams(search) };
}

function page({ parts, query }) {
  const [section, table, view] = parts;
  if (section === "tables" && table && view === "item") {
    return html`<${ItemPage} table=${table} keyText=${query.get("key") || ""} watch=${query.get("watch") || ""} />`;
  }
  if (section === "tables" && table) return html`<${TablePage} table=${table} tab=${view || "items"} />`;
  if (section === "builder") return html`<${BuilderPage} />`;
  if (section === "partiql") return html`<${PartiqlPage} />`;
  if (section === "hotkeys") return html`<${HotKeysPage} />`;
  if (section === "counters") return html`<${CountersPage} />`;
  return html`<${TablesPage} search=${query.get("q") || ""} />`;
}

/** The header's search: a table by name ("/" focuses it from anywhere). */
function Search() {
  const [text, setText] = useState("");
  const [names, setNames] = useState([]);
  const box = useRef(null);
  useEffect(() => {
    const onKey = (event) => {
      const target = event.target;
      const typing = target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        box.current.focus();
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const submit = async (event) => {
    event.preventDefault();
    const wanted = text.trim();
    const known = names.includes(wanted) ? names : await listTables().catch(() => names);
    location.hash = known.includes(wanted) ? `#/tables/${encodeURIComponent(wanted)}` : `#/tables?q=${encodeURIComponent(wanted)}`;
  };
  return html`<form role="search" class="search" onSubmit=${submit}>
    <input ref=${box} type="search" name="q" aria-label="Search tables (press / to focus)" placeholder="Search tables  /"
      list="table-names" value=${text} onInput=${(e) => setText(e.target.value)}
      onFocus=${() => listTables().then(setNames, () => {})} />
    <datalist id="table-names">${names.map((name) => html`<option value=${name} />`)}</datalist>
  </form>`;
}

function KeyForm({ onDone, reason }) {
  const current = storedKey();
  const [accessKeyId, setId] = useState(current ? current.accessKeyId : "");
  const [secretAccessKey, setSecret] = useState("");
  const submit = (event) => {
    event.preventDefault();
    setKey({ accessKeyId: accessKeyId.trim(), secretAccessKey });
    onDone();
  };
  return html`<form class="card keyform" onSubmit=${submit} aria-labelledby="key-title">
    <h2 id="key-title">Access key</h2>
    <p>This server checks SigV4 signatures. Requests from this page are signed in the
      browser with the key you give; it is kept for this tab only.</p>
    ${reason && html`<p class="error" role="alert">${reason}</p>`}
    <label>Access key id <input name="accessKeyId" autocomplete="username" required
      value=${accessKeyId} onInput=${(e) => setId(e.target.value)} /></label>
    <label>Secret access key <input name="secretAccessKey" type="password"
      autocomplete="current-password" required value=${secretAccessKey}
      onInput=${(e) => setSecret(e.target.value)} /></label>
    <div class="row">
      <button type="submit" class="primary">Use this key</button>
      ${current && html`<button type="button" onClick=${() => { setKey(null); onDone(); }}>Forget key</button>`}
    </div>
  </form>`;
}

function LiveStatus() {
  const [status, setStatus] = useState({ ...live.state });
  useEffect(() => live.on("status", (s) => setStatus({ ...s })), []);
  const text = status.connected ? "live" : status.error ? `offline: ${status.error}` : "connecting";
  return html`<span class=${status.connected ? "live on" : "live off"} title=${text}
    aria-live="polite">${status.connected ? "● live" : "○ " + (status.error ? "offline" : "connecting")}</span>`;
}

function App() {
  const [where, setWhere] = useState(route());
  const [server, setServer] = useState(null);
  const [key, setKeyState] = useState(storedKey());
  const [askKey, setAskKey] = useState(false);
  const [authProblem, setAuthProblem] = useState("");

  useEffect(() => {
    const onHash = () => setWhere(route());
    addEventListener("hashchange", onHash);
    info().then((answer) => { setServerInfo(answer); setServer(answer); }).catch(() => setServer({ auth: false }));
    const offKey = onKeyChange((k) => { setKeyState(k); live.connect(); });
    const onAuth = (event) => setAuthProblem(event.detail);
    addEventListener("tally-auth-error", onAuth);
    return () => { removeEventListener("hashchange", onHash); offKey(); removeEventListener("tally-auth-error", onAuth); };
  }, []);

  useEffect(() => {
    if (server && (!server.auth || key)) live.connect();
    if (server && server.auth && !key) live.disconnect();
  }, [server]);

  const needKey = server && server.auth && (!key || askKey);
  const [section] = where.parts;
  const nav = (name, label) => html`<a href=${`#/${name}`}
    aria-current=${(section || "tables") === name ? "page" : undefined}>${label}</a>`;
  return html`
    <header class="top">
      <a class="brand" href="#/tables">tally<b>db</b></a>
      <nav aria-label="Sections">${nav("tables", "Tables")}${nav("builder", "Expression builder")}${nav("partiql", "PartiQL")}${nav("hotkeys", "Hot keys")}${nav("counters", "Counters")}</nav>
      <span class="spacer"></span>
      <${Search} />
      ${server && server.version && html`<span class="muted version">v${server.version}</span>`}
      ${server && server.emulateLimits && html`<span class="badge" title="--emulate-limits">limits</span>`}
      ${server && server.auth && html`<button type="button" class="small keybutton" onClick=${() => setAskKey(true)}>
        ${key ? `Key ${key.accessKeyId}` : "No key"}</button>`}
      <${LiveStatus} />
    </header>
    ${authProblem && !needKey && html`<div class="banner error" role="alert">
      <span>${authProblem}</span>
      ${server && server.auth && html`<button type="button" class="small" onClick=${() => { setAuthProblem(""); setAskKey(true); }}>Change key</button>`}
      <button type="button" class="small" aria-label="Dismiss" onClick=${() => setAuthProblem("")}>×</button>
    </div>`}
    <main id="main">
      ${server === null ? html`<p class="muted">Loading…</p>`
        : needKey ? html`<${KeyForm} reason=${authProblem} onDone=${() => { setAskKey(false); setAuthProblem(""); }} />`
        : page(where)}
    </main>`;
}

render(html`<${App} />`, document.getElementById("app"));
