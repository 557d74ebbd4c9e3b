// The page's one server-sent-events stream (GET /console/events): committed
// changes, hot keys, counters, the operational view's seconds and resync
// notices for every panel. Signed like any
// request, so it runs over fetch; closed while the tab is hidden.
import { fetchEventSource } from "../vendor/fetch-event-source-2.0.1/index.js";
import { call, send } from "./api.js";
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

// Events are handled one at a time, in order: a change whose image came as a
// reference (a large item: "ref": true, no "new") is read first.
let pending = Promise.resolve();

function dispatch(message) {
  pending = pending.then(() => handle(message)).catch((error) => console.error(error));
}

/** Fill in the images the server sent as references, with GetItem. */
async function resolve(changes) {
  let failed = false;
  await Promise.all(changes.filter((change) => change.ref).map(async (change) => {
    try {
      const answer = await call("GetItem", { TableName: change.table, Key: change.keys, ConsistentRead: true });
      change.new = answer.Item || null;
    } catch {
      failed = true;
    }
    delete change.ref;
  }));
  return failed;
}

async function handle(message) {
  const data = message.data ? JSON.parse(message.data) : {};
  switch (message.event) {
    case "hello":
      state.seq = data.seq;
      setStatus(true);
      // A second hello means the stream was reopened: what is on screen may be stale.
      if (helloSeen) emit("resync", data);
      helloSeen = true;
      break;
    case "changes": {
      const failed = await resolve(data.changes);
      state.seq = data.seq;
      const known = data.changes.filter((change) => change.new !== undefined);
      if (known.length) emit("changes", known);
      if (failed) emit("resync", data); // an image could not be read: re-read what is shown
      break;
    }
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
