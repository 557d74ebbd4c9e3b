// Reads a whole DynamoDB stream with the AWS SDK for JavaScript v3 and
// prints its records as JSON: node read_stream.mjs ENDPOINT STREAM_ARN
import {
  DynamoDBStreamsClient,
  DescribeStreamCommand,
  GetShardIteratorCommand,
  GetRecordsCommand,
} from "@aws-sdk/client-dynamodb-streams";

const [endpoint, arn] = process.argv.slice(2);
const client = new DynamoDBStreamsClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "x", secretAccessKey: "y" },
  maxAttempts: 1,
});
const described = await client.send(new DescribeStreamCommand({ StreamArn: arn }));
const shard = described.StreamDescription.Shards[0].ShardId;
let { ShardIterator: iterator } = await client.send(new GetShardIteratorCommand({
  StreamArn: arn, ShardId: shard, ShardIteratorType: "TRIM_HORIZON",
}));
const records = [];
while (iterator) {
  const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 40 }));
  records.push(...page.Records);
  if (page.Records.length === 0) break;
  iterator = page.NextShardIterator;
}
console.log(JSON.stringify(records.map((r) => ({
  eventName: r.eventName,
  sequenceNumber: r.dynamodb.SequenceNumber,
  keys: r.dynamodb.Keys,
  oldImage: r.dynamodb.OldImage ?? null,
  newImage: r.dynamodb.NewImage ?? null,
  created: r.dynamodb.ApproximateCreationDateTime instanceof Date,
}))));
