// A ready-to-deploy SQS endpoint on Cloudflare Workers: the Worker and its two Durable Object
// classes come from the package.
export { default, WasqQueue, WasqDirectory } from "wasq/worker";
