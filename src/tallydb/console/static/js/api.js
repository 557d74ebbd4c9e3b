// The one way the page talks to the server: DynamoDB's JSON 1.0 protocol on
// POST /, exactly as an SDK sends it, signed with SigV4 when a key is set.
import { AwsClient } from "../vendor/aws4fetch-1.0.20.js";

const KEY_STORE = "tallydb.console.key";
const TARGET = "DynamoDB_20120810.";
/** DynamoDB Streams' operations are served under their own target prefix. */
const STREAMS_TARGET = "DynamoDBStreams_20120810.";
const STREAMS = new Set(["ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"]);
export const REGION = "us-east-1";

/** A DynamoDB error answer: its short type (ValidationException), message, status, body. */
export class DynamoError extends Error {
  constructor(status, body) {
    const type = String(body.__type || "InternalServerError").split("#").pop();
    super(body.message || body.Message || type);
    this.type = type;
    this.status = status;
    this.body = body;
  }
  get isAuth() {
    return ["AccessDeniedException", "UnrecognizedClientException",
      "InvalidSignatureException", "MissingAuthenticationTokenException"].includes(this.type);
  }
}

/** The server did not answer at all (stopped, restarting, network gone). */
export class Unreachable extends Error {
  constructor() {
    super(`The server at ${location.origin} is not answering: is tallydb serve running? Nothing was sent.`);
    this.offline = true;
    this.type = "Unreachable";
  }
}

let signer = null;
const listeners = new Set();
/** Signers for other regions than REGION, by region (see regionSigner). */
let regional = new Map();

/** The key the user typed, kept for this tab only (sessionStorage). */
export function storedKey() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY_STORE) || "null");
  } catch {
    return null;
  }
}

function signerFor(key, region) {
  return new AwsClient({
    accessKeyId: key.accessKeyId,
    secretAccessKey: key.secretAccessKey,
    service: "dynamodb",
    region,
    retries: 0, // never resend a write: an UpdateItem sent twice counts twice
  });
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY_STORE, JSON.stringify(key));
  else sessionStorage.removeItem(KEY_STORE);
  signer = key ? signerFor(key, REGION) : null;
  regional = new Map();
  for (const listener of listeners) listener(key);
}

/** A signer for another region: the server runs a request in the region of
 * its signature. Without a key the server checks no signature, so any key
 * signs (the region is all that counts). */
function regionSigner(region) {
  if (!regional.has(region)) {
    regional.set(region, signerFor(storedKey() || { accessKeyId: "console", secretAccessKey: "console" }, region));
  }
  return regional.get(region);
}

export function onKeyChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

setKey(storedKey());

/** fetch, signed when the user gave a key (always, for another region than
 * REGION); Unreachable when no answer came. */
export async function send(url, init = {}, region = REGION) {
  const by = region === REGION ? signer : regionSigner(region);
  try {
    return await (by ? by.fetch(url, init) : fetch(url, init));
  } catch (error) {
    if (error instanceof TypeError || (error && error.name === "TypeError")) throw new Unreachable();
    throw error;
  }
}

async function answer(response) {
  const text = await response.text();
  let body;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { __type: "InternalServerError", message: text || response.statusText };
  }
  if (!response.ok) throw new DynamoError(response.status, body);
  return body;
}

/** Run one DynamoDB operation: call("UpdateItem", {...}) -> the response body;
 * call("GetItem", {...}, "eu-west-1") runs it in that region. */
export async function call(operation, request, region = REGION) {
  const response = await send(new URL("/", location.href).href, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": (STREAMS.has(operation) ? STREAMS_TARGET : TARGET) + operation,
    },
    body: JSON.stringify(request),
  }, region);
  try {
    return await answer(response);
  } catch (error) {
    if (error instanceof DynamoError && error.isAuth) {
      dispatchEvent(new CustomEvent("tally-auth-error", { detail: authProblem(error) }));
    }
    throw error;
  }
}

/** What a refused key means, in words, with the server's own message. */
export function authProblem(error) {
  const why = {
    AccessDeniedException: "This key may not do that (a read-only key cannot write).",
    UnrecognizedClientException: "The server does not know this access key.",
    InvalidSignatureException: "The secret does not match this access key.",
    MissingAuthenticationTokenException: "This server needs an access key.",
  }[error.type] || "The request was refused.";
  return `${why} ${error.type}: ${error.message}`;
}

/** Ask the server's own parser about expressions without running them. */
export async function parse(fields) {
  const response = await send(new URL("/console/api/parse", location.href).href, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(fields),
  });
  return answer(response);
}

/** Every global table replica's replication: {Replicas: [{TableName, RegionName,
 * Replicas, Consistency, PendingChanges, LagSeconds}]} (tallydb's own route:
 * DynamoDB reports lag only to CloudWatch). */
export async function replication() {
  return answer(await send(new URL("/console/api/replication", location.href).href));
}

/** {version, auth, emulateLimits}: unsigned, so the page knows whether to ask for a key. */
export async function info() {
  const response = await fetch(new URL("/console/api/info", location.href).href).catch(() => null);
  if (!response) return { version: "", auth: false, emulateLimits: false, offline: true };
  if (!response.ok) return { version: "", auth: false, emulateLimits: false };
  return response.json();
}

// With serve --table-delays a table stays CREATING, UPDATING or DELETING for
// a while, as on DynamoDB: pages showing one describe it again this often.
export const STATUS_POLL_MS = 500;

/** Whether a table is in a passing state (CREATING, UPDATING, DELETING). */
export const changing = (t) => Boolean(t && t.TableStatus && t.TableStatus !== "ACTIVE");

/** DescribeTable's Table once the table answers item operations (no longer CREATING). */
export async function describeReady(table) {
  for (;;) {
    const { Table } = await call("DescribeTable", { TableName: table });
    if (Table.TableStatus !== "CREATING") return Table;
    await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
  }
}

/** Every table name, following LastEvaluatedTableName. */
export async function listTables() {
  const names = [];
  let start;
  do {
    const page = await call("ListTables", start ? { ExclusiveStartTableName: start } : {});
    names.push(...page.TableNames);
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}
