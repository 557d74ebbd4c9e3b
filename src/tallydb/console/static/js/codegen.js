// The same request as copyable code: JSON, boto3, the AWS CLI, the JavaScript SDK v3.
import { REGION } from "./api.js";

const snake = (name) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
const kebab = (name) => snake(name).replace(/_/g, "-");

const LINE = 88;

/** A JSON value as a Python literal on one line. */
function pythonInline(value) {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonInline).join(", ")}]`;
  return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonInline(v)}`).join(", ")}}`;
}

/** A JSON value as a Python literal: on one line if it fits, else indented like black. */
export function python(value, indent = "") {
  const inline = pythonInline(value);
  if (typeof value !== "object" || value === null || indent.length + inline.length <= LINE - 20) {
    return inline;
  }
  const inner = indent + "    ";
  if (Array.isArray(value)) {
    if (!value.length) return "[]";
    return `[\n${value.map((v) => inner + python(v, inner)).join(",\n")},\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (!entries.length) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${python(v, inner)}`).join(",\n")},\n${indent}}`;
}

const shellQuote = (text) => `'${String(text).replace(/'/g, "'\\''")}'`;

export function boto3(operation, request) {
  const args = Object.entries(request)
    .map(([name, value]) => `    ${name}=${python(value, "    ")},`)
    .join("\n");
  return `import boto3

client = boto3.client("dynamodb", endpoint_url=${JSON.stringify(location.origin)}, region_name="${REGION}")
response = client.${snake(operation)}(
${args}
)
print(response)`;
}

export function cli(operation, request) {
  const args = Object.entries(request).map(([name, value]) => {
    const text = typeof value === "string" || typeof value === "number"
      ? String(value) : JSON.stringify(value);
    return `    --${kebab(name)} ${shellQuote(text)}`;
  });
  return [`aws dynamodb ${kebab(operation)} --endpoint-url ${location.origin} --region ${REGION}`,
    ...args].join(" \\\n");
}

export function javascript(operation, request) {
  const body = JSON.stringify(request, null, 2);
  return `import { DynamoDBClient, ${operation}Command } from "@aws-sdk/client-dynamodb";

const client = new DynamoDBClient({ endpoint: ${JSON.stringify(location.origin)}, region: "${REGION}" });
const response = await client.send(new ${operation}Command(${body}));
console.log(response);`;
}

export const json = (_operation, request) => JSON.stringify(request, null, 2);

export const FORMATS = [
  ["JSON", json],
  ["boto3", boto3],
  ["AWS CLI", cli],
  ["JavaScript", javascript],
];
