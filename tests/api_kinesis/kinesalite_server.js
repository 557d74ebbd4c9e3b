// kinesalite on 127.0.0.1:PORT, surviving a client that drops a request
// mid-body. kinesalite 3 throws from the request's 'error' event ("aborted",
// ECONNRESET), which ends the whole process; the Kinesis destination tests
// kill -9 tallydb while it sends, which does exactly that. Such a request
// simply has no answer; anything else still ends the process.
const path = require("path");

process.on("uncaughtException", (error) => {
  if (error && error.code === "ECONNRESET") return;
  console.error(error);
  process.exit(1);
});

const [modules, port] = process.argv.slice(2);
const kinesalite = require(path.join(modules, "kinesalite"));
kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 100 })
  .listen(Number(port), "127.0.0.1");
