// `make serve-edge`: the Worker in workerd on 127.0.0.1:8787 with persistent storage, partitioned
// as examples/edge/wrangler.toml deploys it.
import { examplePartitions, startWorker } from "./harness.mjs";

const port = Number(process.env.PORT ?? 8787);
const persist = process.env.WASQ_EDGE_STATE ?? "target/wasq-edge";
const mf = startWorker({ partitions: Number(process.env.WASQ_PARTITIONS ?? examplePartitions()), persist, host: "127.0.0.1", port });
const url = await mf.ready;
console.log(`wasq edge worker on ${url.origin} (state in ${persist}/, SigV4 access key "test", secret "test", region any)`);
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
