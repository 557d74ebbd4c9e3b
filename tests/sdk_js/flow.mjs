// CreateTable, PutItem, UpdateItem (the atomic counter), Query, a refused
// conditional write and DeleteTable through the AWS SDK for JavaScript v3.
// Usage: node flow.mjs ENDPOINT TABLE. Prints one JSON object of what each
// call answered, for tests/sdk_js/test_sdk_js.py to check.
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";

const [endpoint, table] = process.argv.slice(2);
const client = new DynamoDBClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "x", secretAccessKey: "y" },
  maxAttempts: 1,
});
const out = {};

await client.send(new CreateTableCommand({
  TableName: table,
  BillingMode: "PAY_PER_REQUEST",
  AttributeDefinitions: [
    { AttributeName: "PK", AttributeType: "S" },
    { AttributeName: "SK", AttributeType: "S" },
  ],
  KeySchema: [
    { AttributeName: "PK", KeyType: "HASH" },
    { AttributeName: "SK", KeyType: "RANGE" },
  ],
}));
await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: table });

for (const sk of ["a", "b", "c"]) {
  await client.send(new PutItemCommand({
    TableName: table,
    Item: { PK: { S: "video" }, SK: { S: sk }, title: { S: `title ${sk}` } },
  }));
}
let counter;
for (let i = 0; i < 5; i++) {
  counter = await client.send(new UpdateItemCommand({
    TableName: table,
    Key: { PK: { S: "video" }, SK: { S: "a" } },
    UpdateExpression: "ADD plays :one",
    ExpressionAttributeValues: { ":one": { N: "1" } },
    ReturnValues: "UPDATED_NEW",
  }));
}
out.counter = counter.Attributes;

const page = await client.send(new QueryCommand({
  TableName: table,
  KeyConditionExpression: "PK = :pk AND SK >= :from",
  ExpressionAttributeValues: { ":pk": { S: "video" }, ":from": { S: "b" } },
  ScanIndexForward: false,
}));
out.query = { Count: page.Count, Items: page.Items };

try {
  await client.send(new PutItemCommand({
    TableName: table,
    Item: { PK: { S: "video" }, SK: { S: "a" } },
    ConditionExpression: "attribute_not_exists(PK)",
  }));
  out.refused = null;
} catch (error) {
  out.refused = { name: error.name, message: error.message,
                  status: error.$metadata.httpStatusCode };
}

const deleted = await client.send(new DeleteTableCommand({ TableName: table }));
out.deleted = deleted.TableDescription.TableStatus;
console.log(JSON.stringify(out));
