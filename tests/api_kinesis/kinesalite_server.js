// kinesalite on 127.0.0.1:PORT, surviving a client that drops a request
// mid-body. kinesalite 3 throws from the request's 'error' event ("aborted",
// ECONNRESET), which ends the whole process; the Kinesis destination tests
// kill -9 tallydb while it sends, which does exactly that. Such a request
// simply has no answer; anything else still ends the process.
//
// A stream whose name starts with "throttled-" takes, as a throttled shard
// does, only the first THROTTLED_TAKES records of each PutRecords: the rest
// are answered with Kinesis's per-record ProvisionedThroughputExceededException
// (the call itself succeeds, with FailedRecordCount). Every other request
// reaches kinesalite as it was sent.
const http = require("http");
const path = require("path");

const THROTTLED_TAKES = 3;

process.on("uncaughtException", (error) => {
  if (error && error.code === "ECONNRESET") return;
  console.error(error);
  process.exit(1);
});

const [modules, port] = process.argv.slice(2);
const kinesalite = require(path.join(modules, "kinesalite"));
const inner = kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0,
                           shardLimit: 100 });

function forward(innerPort, request, body, respond) {
  const headers = { ...request.headers, "content-length": Buffer.byteLength(body) };
  const call = http.request({ host: "127.0.0.1", port: innerPort, method: request.method,
                              path: request.url, headers }, (answer) => {
    const parts = [];
    answer.on("data", (part) => parts.push(part));
    answer.on("end", () => respond(answer, Buffer.concat(parts)));
  });
  call.on("error", () => {});
  call.end(body);
}

inner.listen(0, "127.0.0.1", () => {
  const innerPort = inner.address().port;
  http.createServer((request, response) => {
    const parts = [];
    request.on("error", () => {});
    request.on("data", (part) => parts.push(part));
    request.on("end", () => {
      let body = Buffer.concat(parts);
      const target = request.headers["x-amz-target"] || "";
      let refused = [];
      if (target.endsWith(".PutRecords")) {
        const sent = JSON.parse(body.toString());
        if ((sent.StreamName || "").startsWith("throttled-")) {
          refused = sent.Records.slice(THROTTLED_TAKES);
          sent.Records = sent.Records.slice(0, THROTTLED_TAKES);
          body = Buffer.from(JSON.stringify(sent));
        }
      }
      forward(innerPort, request, body, (answer, data) => {
        if (refused.length && answer.statusCode === 200) {
          const result = JSON.parse(data.toString());
          for (const _ of refused) {
            result.Records.push({
              ErrorCode: "ProvisionedThroughputExceededException",
              ErrorMessage: "Rate exceeded for shard shardId-000000000000 in stream " +
                "throttled under account 000000000000." });
          }
          result.FailedRecordCount = (result.FailedRecordCount || 0) + refused.length;
          data = Buffer.from(JSON.stringify(result));
        }
        const headers = { ...answer.headers, "content-length": data.length };
        response.writeHead(answer.statusCode, headers);
        response.end(data);
      });
    });
  }).listen(Number(port), "127.0.0.1");
});
