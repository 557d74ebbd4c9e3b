// The page's one server-sent-events stream (GET /console/events): committed
// changes, hot keys, counters, the operational view's seconds and resync
// notices for every panel. Signed like any
// request, so it runs over fetch; closed while the tab is hidden.
import { fetchEventSource } from "../vendor/fetch-event-source-2.0.1/index.js";
import { send } from "./api.js";
import { keyId } from "./values.js";

const handlers = {
  changes: new Set(), hotkeys: new Set(), counters: new Set(), metrics: new Set(),
  resync: new Set(), status: new Set(),
};
/** Seconds of the operational view kept on the page (the server keeps as many). */
const METRICS_KEPT = 300;
let controller = null;
let helloSeen = false;
export const state = { connected: false, seq: null, error: "", hotkeys: null, counters: null, metrics: [] };

class Fatal extends Error {}

function emit(kind, data) {
  for (const handler of handlers[kind]) {
    try {
      handler(data);
    } catch (error) {
      console.error(error);
    }
  }
}

function setStatus(connected, error = "") {
  state.connected = connected;
  state.error = error;
  emit("status", state);
}

function dispatch(message) {
  const data = message.data ? JSON.parse(message.data) : {};
  switch (message.event) {
    case "hello":
      state.seq = data.seq;
      setStatus(true);
      // A second hello means the stream was reopened: what is on screen may be stale.
      if (helloSeen) emit("resync", data);
      helloSeen = true;
      break;
    case "changes":
      state.seq = data.seq;
      emit("changes", data.changes);
      break;
    case "hotkeys":
      state.hotkeys = data;
      emit("hotkeys", data);
      break;
    case "counters":
      state.counters = data;
      emit("counters", data);
      break;
    case "metrics":
      state.metrics = (data.whole ? data.seconds : [...state.metrics, ...data.seconds]).slice(-METRICS_KEPT);
      emit("metrics", state.metrics);
      break;
    case "resync":
      emit("resync", data);
      break;
    default:
  }
}

/** Open (or reopen, after a key change) the stream. */
export function connect() {
  if (controller) controller.abort();
  controller = new AbortController();
  const signal = controller.signal;
  fetchEventSource(new URL("/console/events", location.href).href, {
    signal,
    fetch: (url, init) => send(url, init),
    async onopen(response) {
      if (response.ok && (response.headers.get("content-type") || "").startsWith("text/event-stream")) {
        return;
      }
      const text = await response.text();
      let message = `${response.status} ${response.statusText}`;
      try {
        message = JSON.parse(text).message || message;
      } catch { /* not JSON: keep the status line */ }
      if (response.status >= 400 && response.status < 500) throw new Fatal(message);
      throw new Error(message);
    },
    onmessage: dispatch,
    onclose() {
      throw new Error("the live stream closed");
    },
    onerror(error) {
      setStatus(false, error.message);
      if (error instanceof Fatal) throw error;
      return 2000;
    },
  }).catch((error) => setStatus(false, error.message));
}

export function disconnect() {
  if (controller) controller.abort();
  controller = null;
  setStatus(false);
}

/** Subscribe: kind is "changes" | "hotkeys" | "counters" | "metrics" | "resync" | "status".
 * Returns the unsubscribe. */
export function on(kind, handler) {
  handlers[kind].add(handler);
  return () => handlers[kind].delete(handler);
}

/** Call handler(change) for each committed change to one item. */
export function onItem(table, key, handler) {
  const id = keyId(table, key);
  return on("changes", (changes) => {
    for (const change of changes) {
      if (change.table === table && keyId(table, change.keys) === id) handler(change);
    }
  });
}
