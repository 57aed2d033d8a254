// Throughput of the edge Worker in local workerd (not a test: `node tests/edge/bench.mjs`).
// SendMessage through the Worker with SigV4 on, 64 concurrent clients, for 1, 2, 4, 8 partitions
// of a high-throughput FIFO queue (1,000 groups), then the same load on one object directly
// (its /http endpoint, bypassing the Worker) to isolate what one queue object sustains.
import * as S from "@aws-sdk/client-sqs";
import { startWorker, client } from "./harness.mjs";

const SECONDS = Number(process.env.SECONDS_EACH ?? 4);
const CONCURRENCY = 64;
const htFifo = { FifoQueue: "true", DeduplicationScope: "messageGroup", FifoThroughputLimit: "perMessageGroupId" };

async function run(label, op) {
  let n = 0;
  let i = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < end) {
      await op(i++);
      n++;
    }
  }));
  console.log(`${label}: ${(n / SECONDS).toFixed(0)} req/s`);
}

for (const partitions of (process.env.PARTITIONS ?? "1,2,4,8").split(",").map(Number)) {
  const mf = startWorker({ partitions });
  const sqs = await client(mf);
  const url = (await sqs.send(new S.CreateQueueCommand({ QueueName: "bench.fifo", Attributes: htFifo }))).QueueUrl;
  await run(`SendMessage via Worker, ${partitions} partition(s)`, (i) =>
    sqs.send(new S.SendMessageCommand({ QueueUrl: url, MessageBody: "x".repeat(200), MessageGroupId: `g${i % 1000}`, MessageDeduplicationId: `d${i}` })));
  if (partitions === 1) {
    const ns = await mf.getDurableObjectNamespace("WASQ_QUEUE");
    const obj = ns.get(ns.idFromName("us-east-1/bench.fifo/0"));
    const headers = [["host", "localhost"], ["x-amz-target", "AmazonSQS.SendMessage"], ["content-type", "application/x-amz-json-1.0"]];
    await run("SendMessage on one queue object directly", (i) =>
      obj.fetch("http://wasq/http", {
        method: "POST",
        headers: { "x-wasq-request": JSON.stringify({ method: "POST", path: "/", query: "", headers }) },
        body: JSON.stringify({ QueueUrl: url, MessageBody: "x".repeat(200), MessageGroupId: `g${i % 1000}`, MessageDeduplicationId: `o${i}` }),
      }).then((r) => r.arrayBuffer()));
  }
  await mf.dispose();
}
