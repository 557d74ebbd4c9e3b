// A request the console sends, as a complete program that sends it again:
// JSON, boto3, the AWS CLI, the JavaScript SDK v3 and the Java SDK v2. Each
// reads the endpoint, region and credentials from the environment, defaulting
// to the server the page came from, and says so in a comment.
import { REGION } from "./api.js";

const server = { auth: false };

/** What the snippets must know of the server: whether it checks keys (--credentials). */
export function setServerInfo(info) {
  server.auth = Boolean(info && info.auth);
}

/** DynamoDB Streams' operations: another client in every SDK. */
const STREAMS = new Set(["ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"]);
const streams = (operation) => STREAMS.has(operation);

const snake = (name) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
const kebab = (name) => snake(name).replace(/_/g, "-");
const lowerFirst = (name) => name[0].toLowerCase() + name.slice(1);
const endpoint = () => location.origin;
const LINE = 88;

/** The variables every snippet reads, and what each defaults to. */
function environment() {
  return [
    ["TALLYDB_ENDPOINT", endpoint(), "the server"],
    ["AWS_REGION", REGION, "the region"],
    ["AWS_ACCESS_KEY_ID", server.auth ? null : "tallydb", "the access key"],
    ["AWS_SECRET_ACCESS_KEY", server.auth ? null : "tallydb", "its secret"],
  ];
}

/** The comment lines at the top of every snippet (without the comment marker). */
function preamble(operation) {
  return [
    `${operation} against the tallydb server at ${endpoint()}, as the console sent it.`,
    "The endpoint, region and credentials are read from the environment:",
    ...environment().map(([name, fallback, what]) => `  ${name.padEnd(22)} ${what}${
      fallback === null ? " (required: this server checks signatures)" : ` (default: ${fallback})`}`),
    server.auth ? "Use a key the server knows (tallydb serve --credentials)."
      : "This server does not check keys: any values do.",
  ];
}

// ---- Python (boto3) ----

/** A JSON value as a Python literal on one line; binary ({"B": base64}) as bytes. */
function pythonInline(value) {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonInline).join(", ")}]`;
  return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonBinary(k, v) ?? pythonInline(v)}`).join(", ")}}`;
}

function pythonBinary(key, value) {
  if (key === "B" && typeof value === "string") return `base64.b64decode(${JSON.stringify(value)})`;
  if (key === "BS" && Array.isArray(value)) return `[${value.map((v) => `base64.b64decode(${JSON.stringify(v)})`).join(", ")}]`;
  return null;
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
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pythonBinary(k, v) ?? python(v, inner)}`).join(",\n")},\n${indent}}`;
}

const usesBinary = (request) => /"BS?":/.test(JSON.stringify(request));

export function boto3(operation, request) {
  const args = Object.entries(request)
    .map(([name, value]) => `    ${name}=${python(value, "    ")},`)
    .join("\n");
  const env = (name, fallback) => (fallback === null ? `os.environ[${JSON.stringify(name)}]`
    : `os.environ.get(${JSON.stringify(name)}, ${JSON.stringify(fallback)})`);
  const [endpointVar, regionVar, keyVar, secretVar] = environment();
  return `${preamble(operation).map((line) => `# ${line}`.trimEnd()).join("\n")}
${usesBinary(request) ? "import base64\n" : ""}import os

import boto3

client = boto3.client(
    "${streams(operation) ? "dynamodbstreams" : "dynamodb"}",
    endpoint_url=${env(endpointVar[0], endpointVar[1])},
    region_name=${env(regionVar[0], regionVar[1])},
    aws_access_key_id=${env(keyVar[0], keyVar[1])},
    aws_secret_access_key=${env(secretVar[0], secretVar[1])},
)
response = client.${snake(operation)}(
${args}
)
response.pop("ResponseMetadata", None)
print(response)`;
}

// ---- AWS CLI ----

const shellQuote = (text) => `'${String(text).replace(/'/g, "'\\''")}'`;

/** Members the CLI takes only through --cli-input-json (its pagination hides them). */
const PAGINATION = { Scan: ["Limit", "ExclusiveStartKey"], Query: ["Limit", "ExclusiveStartKey"],
  ListTables: ["Limit", "ExclusiveStartTableName"], ListBackups: ["Limit", "ExclusiveStartBackupArn"],
  ExecuteStatement: ["NextToken"] };

export function cli(operation, request) {
  const hidden = PAGINATION[operation] || [];
  const paged = Object.fromEntries(Object.entries(request).filter(([name]) => hidden.includes(name)));
  const args = Object.entries(request).filter(([name]) => !hidden.includes(name)).map(([name, value]) => {
    if (typeof value === "boolean") return `    --${value ? "" : "no-"}${kebab(name)}`;
    const text = typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value);
    return `    --${kebab(name)} ${shellQuote(text)}`;
  });
  if (Object.keys(paged).length) args.push(`    --cli-input-json ${shellQuote(JSON.stringify(paged))}`);
  if (hidden.length) args.push("    --no-paginate");
  const env = (name, fallback) => (fallback === null ? `"$${name}"` : `"\${${name}:-${fallback}}"`);
  const [endpointVar, regionVar, keyVar, secretVar] = environment();
  const binary = usesBinary(request)
    ? ["Binary values are base64 text, as AWS CLI v2 reads them (v1 would store the text itself)."] : [];
  return [
    ...[...preamble(operation), ...binary].map((line) => `# ${line}`.trimEnd()),
    `AWS_ACCESS_KEY_ID=${env(...keyVar)} AWS_SECRET_ACCESS_KEY=${env(...secretVar)} \\`,
    `aws ${streams(operation) ? "dynamodbstreams" : "dynamodb"} ${kebab(operation)} \\`,
    `    --endpoint-url ${env(...endpointVar)} \\`,
    `    --region ${env(...regionVar)} \\`,
    ...args.map((line, i) => (i < args.length - 1 ? `${line} \\` : line)),
  ].join("\n").replace(/ \\$/, "");
}

// ---- JavaScript (AWS SDK for JavaScript v3) ----

/** A JSON value as a JavaScript literal; binary ({"B": base64}) as bytes. */
function jsLiteral(value, indent = "") {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (!value.length) return "[]";
    return `[\n${value.map((v) => inner + jsLiteral(v, inner)).join(",\n")},\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (!entries.length) return "{}";
  const key = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  return `{\n${entries.map(([k, v]) => {
    let shown;
    if (k === "B" && typeof v === "string") shown = `Buffer.from(${JSON.stringify(v)}, "base64")`;
    else if (k === "BS" && Array.isArray(v)) shown = `[${v.map((b) => `Buffer.from(${JSON.stringify(b)}, "base64")`).join(", ")}]`;
    else shown = jsLiteral(v, inner);
    return `${inner}${key(k)}: ${shown}`;
  }).join(",\n")},\n${indent}}`;
}

export function javascript(operation, request) {
  const env = (name, fallback) => (fallback === null ? `process.env.${name}`
    : `process.env.${name} ?? ${JSON.stringify(fallback)}`);
  const [endpointVar, regionVar, keyVar, secretVar] = environment();
  const [pkg, Client] = streams(operation) ? ["@aws-sdk/client-dynamodb-streams", "DynamoDBStreamsClient"]
    : ["@aws-sdk/client-dynamodb", "DynamoDBClient"];
  return `${preamble(operation).map((line) => `// ${line}`.trimEnd()).join("\n")}
// Needs the SDK (npm install ${pkg}); run as an ES module (.mjs).
import { ${Client}, ${operation}Command } from "${pkg}";

const client = new ${Client}({
  endpoint: ${env(endpointVar[0], endpointVar[1])},
  region: ${env(regionVar[0], regionVar[1])},
  credentials: {
    accessKeyId: ${env(keyVar[0], keyVar[1])},
    secretAccessKey: ${env(secretVar[0], secretVar[1])},
  },
});
const { $metadata, ...response } = await client.send(new ${operation}Command(${jsLiteral(request)}));
console.log(JSON.stringify(response, null, 2));`;
}

// ---- Java (AWS SDK for Java 2.x) ----

/** Members whose value is Map<String, AttributeValue> (or, for Parameters, a list of them). */
const ITEM_MAPS = new Set(["Key", "Item", "ExpressionAttributeValues", "ExclusiveStartKey"]);
/** The model class of a structure member, by "Parent.Member" or by member alone. */
const STRUCTURES = {
  TransactItems: "TransactWriteItem", Put: "Put", Update: "Update", Delete: "Delete",
  ConditionCheck: "ConditionCheck", KeySchema: "KeySchemaElement",
  AttributeDefinitions: "AttributeDefinition", ProvisionedThroughput: "ProvisionedThroughput",
  GlobalSecondaryIndexes: "GlobalSecondaryIndex", LocalSecondaryIndexes: "LocalSecondaryIndex",
  Projection: "Projection", StreamSpecification: "StreamSpecification",
  TimeToLiveSpecification: "TimeToLiveSpecification", Tags: "Tag",
  GlobalSecondaryIndexUpdates: "GlobalSecondaryIndexUpdate",
  "GlobalSecondaryIndexUpdate.Create": "CreateGlobalSecondaryIndexAction",
  "GlobalSecondaryIndexUpdate.Update": "UpdateGlobalSecondaryIndexAction",
  "GlobalSecondaryIndexUpdate.Delete": "DeleteGlobalSecondaryIndexAction",
  PointInTimeRecoverySpecification: "PointInTimeRecoverySpecification",
  OnDemandThroughput: "OnDemandThroughput",
};
/** Members the Java SDK types as Long (an int literal would not compile). */
const JAVA_LONGS = new Set(["ReadCapacityUnits", "WriteCapacityUnits", "MaxReadRequestUnits", "MaxWriteRequestUnits"]);
/** Members the Java SDK names otherwise than lowerCamelCase would. */
const JAVA_SETTERS = { SSESpecification: "sseSpecification" };

const javaString = (text) => JSON.stringify(text);

function javaAttributeValue(value, indent) {
  const [type, inner] = Object.entries(value)[0];
  switch (type) {
    case "S": return `AttributeValue.fromS(${javaString(inner)})`;
    case "N": return `AttributeValue.fromN(${javaString(inner)})`;
    case "BOOL": return `AttributeValue.fromBool(${inner})`;
    case "NULL": return "AttributeValue.fromNul(true)";
    case "B": return `AttributeValue.fromB(SdkBytes.fromByteArray(Base64.getDecoder().decode(${javaString(inner)})))`;
    case "SS": return `AttributeValue.fromSs(List.of(${inner.map(javaString).join(", ")}))`;
    case "NS": return `AttributeValue.fromNs(List.of(${inner.map(javaString).join(", ")}))`;
    case "BS": return `AttributeValue.fromBs(List.of(${inner.map((b) => `SdkBytes.fromByteArray(Base64.getDecoder().decode(${javaString(b)}))`).join(", ")}))`;
    case "L": return `AttributeValue.fromL(${javaList(inner.map((v) => javaAttributeValue(v, indent + "    ")), indent)})`;
    default: return `AttributeValue.fromM(${javaMap(inner, (v, i) => javaAttributeValue(v, i), indent)})`;
  }
}

function javaList(items, indent) {
  if (!items.length) return "List.of()";
  const inner = indent + "    ";
  const oneLine = `List.of(${items.join(", ")})`;
  return oneLine.length + indent.length <= 100 ? oneLine : `List.of(\n${items.map((i) => inner + i).join(",\n")})`;
}

/** A Map literal: Map.of for up to ten entries, Map.ofEntries beyond. */
function javaMap(object, render, indent) {
  const entries = Object.entries(object);
  if (!entries.length) return "Map.of()";
  const inner = indent + "    ";
  if (entries.length <= 10) {
    return `Map.of(\n${entries.map(([k, v]) => `${inner}${javaString(k)}, ${render(v, inner)}`).join(",\n")})`;
  }
  return `Map.ofEntries(\n${entries.map(([k, v]) => `${inner}Map.entry(${javaString(k)}, ${render(v, inner)})`).join(",\n")})`;
}

/** A model structure as its builder chain. */
function javaStructure(className, object, indent, parent) {
  const inner = indent + "    ";
  const calls = Object.entries(object).map(([name, value]) => `${inner}.${JAVA_SETTERS[name] || lowerFirst(name)}(${javaMember(name, value, inner, parent)})`);
  return `${className}.builder()\n${calls.join("\n")}\n${inner}.build()`;
}

function javaMember(name, value, indent, parent) {
  if (ITEM_MAPS.has(name)) return javaMap(value, (v, i) => javaAttributeValue(v, i), indent);
  if (name === "Parameters") return javaList(value.map((v) => javaAttributeValue(v, indent + "    ")), indent);
  if (name === "ExpressionAttributeNames") return javaMap(value, (v) => javaString(v), indent);
  const structure = STRUCTURES[`${parent}.${name}`] || STRUCTURES[name];
  if (structure && Array.isArray(value)) {
    return javaList(value.map((v) => javaStructure(structure, v, indent + "    ", structure)), indent);
  }
  if (structure && value && typeof value === "object") return javaStructure(structure, value, indent, structure);
  if (Array.isArray(value)) return javaList(value.map((v) => javaString(String(v))), indent);
  if (typeof value === "string") return javaString(value);
  if (typeof value === "number") return JAVA_LONGS.has(name) ? `${value}L` : String(value);
  return String(value);
}

const JAVA_CLIENT = (indent, Client = "DynamoDbClient") => {
  const [endpointVar, regionVar, keyVar, secretVar] = environment();
  const env = ([name, fallback]) => (fallback === null ? `System.getenv(${javaString(name)})`
    : `env(${javaString(name)}, ${javaString(fallback)})`);
  return `${Client}.builder()
${indent}        .endpointOverride(URI.create(${env(endpointVar)}))
${indent}        .region(Region.of(${env(regionVar)}))
${indent}        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
${indent}                ${env(keyVar)}, ${env(secretVar)})))
${indent}        .build()`;
};

const JAVA_ENV = `    static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? otherwise : value;
    }`;

/** An increment the enhanced client can send with @DynamoDbAtomicCounter:
 * "ADD #n :d" of a whole number, no condition. */
function atomicCounter(operation, request) {
  if (operation !== "UpdateItem" || request.ConditionExpression) return null;
  const match = /^ADD (#\w+) (:\w+)$/.exec(request.UpdateExpression || "");
  if (!match) return null;
  const attribute = (request.ExpressionAttributeNames || {})[match[1]];
  const delta = ((request.ExpressionAttributeValues || {})[match[2]] || {}).N;
  if (!attribute || delta === undefined || !/^-?\d+$/.test(delta)) return null;
  const keys = Object.entries(request.Key || {});
  if (!keys.length || keys.some(([, value]) => !["S", "N"].includes(Object.keys(value)[0]))) return null;
  return { attribute, delta, keys };
}

/** A Java field for an attribute name: play_count -> playCount, PK -> pk. */
const javaField = (name) => {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words.map((w, i) => (i ? w[0].toUpperCase() + w.slice(1)
    : /^[A-Z0-9]+$/.test(w) ? w.toLowerCase() : w[0].toLowerCase() + w.slice(1))).join("");
  return /^[a-z]/.test(camel) ? camel : `a${camel}`;
};
const upperFirst = (name) => name[0].toUpperCase() + name.slice(1);

function javaCounter(request, counter) {
  const { attribute, delta, keys } = counter;
  const props = [
    ...keys.map(([name, value], i) => ({ name, field: javaField(name), type: "N" in value ? "Long" : "String",
      annotations: [i === 0 ? "@DynamoDbPartitionKey" : "@DynamoDbSortKey"], value })),
    { name: attribute, field: javaField(attribute), type: "Long",
      annotations: [`@DynamoDbAtomicCounter(delta = ${delta}, startValue = ${delta})`] },
  ];
  const bean = props.map((p) => `        private ${p.type} ${p.field};

        ${p.annotations.join(" ")}
        @DynamoDbAttribute(${javaString(p.name)})
        public ${p.type} get${upperFirst(p.field)}() { return ${p.field}; }
        public void set${upperFirst(p.field)}(${p.type} ${p.field}) { this.${p.field} = ${p.field}; }`).join("\n\n");
  const setKey = props.filter((p) => p.value).map((p) => `            key.set${upperFirst(p.field)}(${
    p.type === "Long" ? `${p.value.N}L` : javaString(p.value.S)});`).join("\n");
  return `${preamble("UpdateItem").map((line) => `// ${line}`.trimEnd()).join("\n")}
// The enhanced client's atomic counter: each updateItem adds delta, and the first
// one writes startValue; with startValue = delta that is exactly ADD #n :d.
// Needs software.amazon.awssdk:dynamodb-enhanced (2.x).
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.extensions.annotations.DynamoDbAtomicCounter;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbAttribute;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbSortKey;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

public class UpdateItemCounter {
${JAVA_ENV}

    @DynamoDbBean
    public static class Counter {
${bean}
    }

    public static void main(String[] args) {
        try (DynamoDbClient client = ${JAVA_CLIENT("        ")}) {
            DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(client).build();
            DynamoDbTable<Counter> table = enhanced.table(${javaString(request.TableName)}, TableSchema.fromBean(Counter.class));
            Counter key = new Counter();
${setKey}
            Counter updated = table.updateItem(r -> r.item(key).ignoreNulls(true));
            System.out.println(${javaString(attribute)} + " = " + updated.get${upperFirst(javaField(attribute))}());
        }
    }
}`;
}

export function java(operation, request) {
  const counter = atomicCounter(operation, request);
  if (counter) return javaCounter(request, counter);
  const Client = streams(operation) ? "DynamoDbStreamsClient" : "DynamoDbClient";
  const text = JSON.stringify(request);
  const imports = ["java.net.URI"];
  if (/"(Key|Item|ExpressionAttributeValues|ExpressionAttributeNames|ExclusiveStartKey)"|"M":/.test(text)) imports.push("java.util.Map");
  if (/\[/.test(text)) imports.push("java.util.List");
  if (usesBinary(request)) imports.push("java.util.Base64", "software.amazon.awssdk.core.SdkBytes");
  return `${preamble(operation).map((line) => `// ${line}`.trimEnd()).join("\n")}
// Needs software.amazon.awssdk:dynamodb (2.x).
${imports.map((i) => `import ${i};`).join("\n")}
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.${streams(operation) ? "streams.DynamoDbStreamsClient" : "DynamoDbClient"};
import software.amazon.awssdk.services.dynamodb.model.*;

public class ${operation}Example {
${JAVA_ENV}

    public static void main(String[] args) {
        try (${Client} client = ${JAVA_CLIENT("        ", Client)}) {
            ${operation}Response response = client.${lowerFirst(operation)}(${javaStructure(`${operation}Request`, request, "                ", operation)});
            System.out.println(response);
        }
    }
}`;
}

export const json = (_operation, request) => JSON.stringify(request, null, 2);

export const FORMATS = [
  ["JSON", json],
  ["boto3", boto3],
  ["AWS CLI", cli],
  ["JavaScript", javascript],
  ["Java", java],
];
