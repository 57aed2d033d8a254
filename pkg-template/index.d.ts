// Type declarations for wasq. One set for every entry point (Node ESM/CJS, browsers, workerd).

// Browser-only types (IndexedDB, Web Storage, WebAssembly.Module) are looked up on globalThis
// rather than named: a Node project compiled with `lib: ["es2022"]` and `types: ["node"]` has no
// DOM lib, and naming them failed its type-check (without skipLibCheck) for types it never uses.
type GlobalPrototype<Name extends string, Fallback> = typeof globalThis extends { [K in Name]: { prototype: infer T } } ? T : Fallback;
type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer T } } } ? T : object;
/** The DOM's IDBFactory (e.g. fake-indexeddb's) where the DOM lib is loaded. */
type IdbFactory = GlobalPrototype<"IDBFactory", object>;
/** The DOM's Storage (localStorage, sessionStorage), or anything with its methods. */
type WebStorage = GlobalPrototype<"Storage", {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}>;

/** Loads the wasm. Required once before `new Engine()` in browsers; a no-op on Node and workerd. */
export function init(source?: string | URL | Request | Response | ArrayBuffer | ArrayBufferView | WasmModule): Promise<void>;

/** Anything with `now()` in epoch milliseconds. A `subscribe` method makes it a stepped clock. */
export interface Clock {
  now(): number;
  /** Called after every change of time; returns an unsubscribe function. */
  subscribe?(listener: (now: number) => void): () => void;
}

export class SystemClock implements Clock {
  now(): number;
}

/** Time that moves only when told to; engines apply everything due before advance()/set() return. */
export class ManualClock implements Clock {
  constructor(start?: number);
  now(): number;
  advance(ms: number): void;
  /** Jump forward to `ms`; going backwards throws a RangeError. */
  set(ms: number): void;
  subscribe(listener: (now: number) => void): () => void;
}

/** One atomic batch of record writes and deletions. */
export interface StorageBatch {
  put: [string, Uint8Array][];
  del: string[];
}

/** What an Engine needs from storage (see README: "Writing a storage adapter"). */
export interface Storage {
  /** Every stored record; called once when an Engine is created (and after a failed commit). */
  loadAll(): Iterable<[string, Uint8Array]>;
  /** Persist one operation's changes atomically, before the operation returns. Throw to refuse. */
  commit(batch: StorageBatch): void;
  /** With `durability: "full"`, async engine methods await this before resolving. */
  flush?(): Promise<void>;
  readonly durability?: "full" | "relaxed";
  close?(): void | Promise<void>;
}

export class MemoryStorage implements Storage {
  constructor(initial?: Iterable<[string, Uint8Array]>);
  readonly durability: "full";
  readonly size: number;
  loadAll(): [string, Uint8Array][];
  commit(batch: StorageBatch): void;
  close(): void;
}

/** Node only: an append-only log in `dir`. Elsewhere the constructor throws. */
export class FileStorage implements Storage {
  /**
   * fsync: `true` (default) syncs every commit before it returns; `"group"` writes each commit
   * before it returns and makes `flush()` resolve after a sync begun after the call, shared by
   * overlapping flushes (durability "full": asynchronous answers wait for it); `false` syncs only
   * in `flush()` and `close()` (durability "relaxed").
   */
  constructor(
    dir: string,
    options?: {
      fsync?: boolean | "group";
      /** Compact when the log exceeds compactRatio (default 2) × live data + compactMinBytes (default 1 MiB). */
      compactRatio?: number;
      compactMinBytes?: number;
      lock?: boolean;
      /** The most read from the log at once (default 4 MiB); a log of any size is read in such chunks. */
      readChunkBytes?: number;
      /** Told what opening dropped from a torn tail (default console.warn). */
      warn?: (message: string) => void;
    },
  );
  readonly durability: "full" | "relaxed";
  /**
   * What opening found: bytes of a torn tail dropped (0 on a clean log), the records among them
   * (0 or 1; 0 for a zero-filled tail), and the whole records replayed.
   */
  readonly recovery: { droppedBytes: number; droppedRecords: number; records: number };
  /** Log size and live data size in bytes, record count, compactions and syncs since open. */
  readonly stats: {
    logBytes: number;
    liveBytes: number;
    records: number;
    compactions: number;
    lastCompactionError: unknown;
    syncs: number;
  };
  loadAll(): Iterable<[string, Uint8Array]>;
  commit(batch: StorageBatch): void;
  flush(): Promise<void>;
  compact(): void;
  close(): void;
}

/** Browsers: an in-memory mirror written behind to IndexedDB. */
export class IndexedDbStorage implements Storage {
  static open(name: string, options?: { durability?: "full" | "relaxed"; indexedDB?: IdbFactory }): Promise<IndexedDbStorage>;
  static destroy(name: string, options?: { indexedDB?: IdbFactory }): Promise<void>;
  readonly durability: "full" | "relaxed";
  loadAll(): Iterable<[string, Uint8Array]>;
  commit(batch: StorageBatch): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Browsers: records in `localStorage` (small demos). */
export class LocalStorageStorage implements Storage {
  constructor(prefix?: string, storage?: WebStorage);
  readonly durability: "full" | "relaxed";
  loadAll(): Iterable<[string, Uint8Array]>;
  commit(batch: StorageBatch): void;
  clear(): void;
  close(): void;
}

/** Cloudflare Durable Objects (SQLite backend): `new DurableObjectStorage(ctx.storage)`. */
export class DurableObjectStorage implements Storage {
  constructor(storage: unknown, options?: { prefix?: string });
  readonly durability: "full" | "relaxed";
  loadAll(): Iterable<[string, Uint8Array]>;
  commit(batch: StorageBatch): void;
  close(): void;
}

export interface EngineOptions {
  clock?: Clock;
  /**
   * Where changes are committed. null: no storage — nothing is kept across a restart, nothing is
   * committed. Omitted: the same as null (in memory, private to the engine); pass a
   * MemoryStorage to restart a second engine over the same records.
   */
  storage?: Storage | null;
  /** Message ids and receipt handles derive from it; drawn at random when absent. */
  seed?: number | bigint;
  region?: string;
  accountId?: string;
  /** `host[:port]` used in queue URLs when a call names none. */
  defaultHost?: string;
  standardInflightLimit?: number;
  fifoInflightLimit?: number;
  /** false: no timers; the host calls `tick()` at `nextDeadline()` (e.g. a Durable Object alarm). */
  timers?: boolean;
  /** Realism mode (off by default): the failures real SQS produces, drawn from the seed. */
  realism?: RealismSetting;
}

/** SQS request quotas (counted per second on the engine's clock), answered with `RequestThrottled`. */
export interface RealismThrottling {
  /** FIFO: calls per second per action per partition (SQS: 300; a batch counts once). */
  fifoPerAction?: number;
  /** High-throughput FIFO: calls per second per action per partition (default 3000). */
  highThroughputPerPartition?: number;
  /** High-throughput FIFO: partitions message groups hash onto (default 8). */
  highThroughputPartitions?: number;
  /** Standard queues: calls per second per action; null/absent: unlimited. */
  standardPerAction?: number | null;
}

/** Independent realism knobs; every one is drawn from the engine's seed. */
export interface Realism {
  /** Probability that a received standard-queue message stays receivable once more (0..1). */
  duplicateDelivery?: number;
  /** Standard queues return visible messages shuffled rather than oldest first. */
  reorder?: boolean;
  /** Fraction of visible messages a short poll sees (0..1; 0 or 1: off). Long polls see all. */
  shortPollSampling?: number;
  /** SQS's quotas; `true`: SQS's defaults. */
  throttling?: RealismThrottling | boolean | null;
  /**
   * `[min, max]` ms added to every async call (receiveMessage, the request handlers), on the
   * engine's clock: a ManualClock is moved forward by it, instantly; a SystemClock really waits.
   */
  latency?: [number, number] | null;
}

/** `"aws"`: what real SQS does by default (rare duplicates, reorder, sampled short polls, quotas, latency). */
export type RealismSetting = "aws" | Realism | null;

/** The settings in force, every knob filled in. */
export interface RealismInForce {
  duplicateDelivery: number;
  reorder: boolean;
  shortPollSampling: number;
  throttling: Required<RealismThrottling> | null;
  latency: [number, number] | null;
}

/** Thrown for every refused SQS call. `name` is the SQS error shape (e.g. "QueueDoesNotExist"). */
export interface SqsError extends Error {
  /** The Query error code, e.g. "AWS.SimpleQueueService.NonExistentQueue". */
  code: string;
  httpStatus: number;
}

/** A state transition, as drawn by the page and asserted by tests. */
export interface EngineEvent {
  at: number;
  queue: string;
  type:
    | "queue-created" | "queue-deleted" | "sent" | "deduplicated" | "delay-ended" | "received"
    | "visibility-changed" | "visibility-expired" | "deleted" | "moved-to-dead-letter-queue"
    | "moved-by-task" | "expired" | "purged"
    /** Realism mode: a message that stays receivable once more / a short poll left out / a call refused. */
    | "duplicate-delivered" | "sampled-out" | "throttled";
  messageId?: string;
  [field: string]: unknown;
}

// Every action's input and output, as the AWS JSON 1.0 protocol names its members (the SDK's
// command inputs use the same names). Typed so that a misspelt member (`QueueURL`), a wrong type
// (`MessageBody: 1`) or an unknown action fails `tsc` instead of the call at run time.

/** A queue attribute's name, as CreateQueue/SetQueueAttributes take and GetQueueAttributes returns. */
export type QueueAttributeName =
  | "DelaySeconds" | "MaximumMessageSize" | "MessageRetentionPeriod" | "Policy"
  | "ReceiveMessageWaitTimeSeconds" | "VisibilityTimeout" | "RedrivePolicy" | "RedriveAllowPolicy"
  | "FifoQueue" | "ContentBasedDeduplication" | "DeduplicationScope" | "FifoThroughputLimit"
  | "KmsMasterKeyId" | "KmsDataKeyReusePeriodSeconds" | "SqsManagedSseEnabled"
  | "ApproximateNumberOfMessages" | "ApproximateNumberOfMessagesNotVisible"
  | "ApproximateNumberOfMessagesDelayed" | "CreatedTimestamp" | "LastModifiedTimestamp" | "QueueArn";
/** A message's system attribute, as ReceiveMessage's MessageSystemAttributeNames names it. */
export type MessageSystemAttributeName =
  | "All" | "SenderId" | "SentTimestamp" | "ApproximateReceiveCount" | "ApproximateFirstReceiveTimestamp"
  | "SequenceNumber" | "MessageDeduplicationId" | "MessageGroupId" | "AWSTraceHeader" | "DeadLetterQueueSourceArn";
/** Attribute values are strings on the wire, numbers included (`{ VisibilityTimeout: "30" }`). */
export type QueueAttributes = Partial<Record<QueueAttributeName, string>>;
/** A message attribute: `BinaryValue` is base64 text, as on the wire. */
export interface MessageAttributeValue {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}
/** The one message system attribute SQS accepts on send. */
export interface MessageSystemAttributeValue {
  DataType: "String";
  StringValue: string;
}
/** A number member: the engine also takes a BigInt holding an integer. */
type Int = number | bigint;

interface QueueRef {
  QueueUrl: string;
}
/** What SendMessage and each SendMessageBatch entry carry. */
interface MessageToSend {
  MessageBody: string;
  DelaySeconds?: Int;
  MessageAttributes?: Record<string, MessageAttributeValue>;
  MessageSystemAttributes?: { AWSTraceHeader?: MessageSystemAttributeValue };
  MessageDeduplicationId?: string;
  MessageGroupId?: string;
}
/** What SendMessage and each successful SendMessageBatch entry answer. */
interface MessageSent {
  MessageId: string;
  MD5OfMessageBody: string;
  MD5OfMessageAttributes?: string;
  MD5OfMessageSystemAttributes?: string;
  /** FIFO queues. */
  SequenceNumber?: string;
}
/** A batch entry SQS refused; the others succeeded. */
export interface BatchResultErrorEntry {
  Id: string;
  SenderFault: boolean;
  Code: string;
  Message?: string;
}
interface BatchOutput<Success> {
  Successful: Success[];
  Failed: BatchResultErrorEntry[];
}
type Empty = Record<string, never>;

export interface CreateQueueInput {
  QueueName: string;
  Attributes?: QueueAttributes;
  tags?: Record<string, string>;
}
export interface GetQueueUrlInput {
  QueueName: string;
  QueueOwnerAWSAccountId?: string;
}
export interface ListQueuesInput {
  QueueNamePrefix?: string;
  NextToken?: string;
  MaxResults?: Int;
}
export interface GetQueueAttributesInput extends QueueRef {
  AttributeNames?: (QueueAttributeName | "All")[];
}
export interface SetQueueAttributesInput extends QueueRef {
  Attributes: QueueAttributes;
}
export interface TagQueueInput extends QueueRef {
  Tags: Record<string, string>;
}
export interface UntagQueueInput extends QueueRef {
  TagKeys: string[];
}
export interface AddPermissionInput extends QueueRef {
  Label: string;
  AWSAccountIds: string[];
  Actions: string[];
}
export interface RemovePermissionInput extends QueueRef {
  Label: string;
}
export interface ListDeadLetterSourceQueuesInput extends QueueRef {
  NextToken?: string;
  MaxResults?: Int;
}
export interface SendMessageInput extends QueueRef, MessageToSend {}
export interface SendMessageBatchInput extends QueueRef {
  Entries: (MessageToSend & { Id: string })[];
}
export interface ReceiveMessageInput extends QueueRef {
  /** Deprecated by SQS in favour of MessageSystemAttributeNames; still accepted. */
  AttributeNames?: (MessageSystemAttributeName | QueueAttributeName)[];
  MessageSystemAttributeNames?: MessageSystemAttributeName[];
  MessageAttributeNames?: string[];
  MaxNumberOfMessages?: Int;
  VisibilityTimeout?: Int;
  WaitTimeSeconds?: Int;
  /** FIFO queues. */
  ReceiveRequestAttemptId?: string;
}
export interface DeleteMessageInput extends QueueRef {
  ReceiptHandle: string;
}
export interface DeleteMessageBatchInput extends QueueRef {
  Entries: { Id: string; ReceiptHandle: string }[];
}
export interface ChangeMessageVisibilityInput extends QueueRef {
  ReceiptHandle: string;
  VisibilityTimeout: Int;
}
export interface ChangeMessageVisibilityBatchInput extends QueueRef {
  Entries: { Id: string; ReceiptHandle: string; VisibilityTimeout: Int }[];
}
export interface StartMessageMoveTaskInput {
  SourceArn: string;
  DestinationArn?: string;
  MaxNumberOfMessagesPerSecond?: Int;
}
export interface CancelMessageMoveTaskInput {
  TaskHandle: string;
}
export interface ListMessageMoveTasksInput {
  SourceArn: string;
  MaxResults?: Int;
}
export interface MessageMoveTask {
  TaskHandle?: string;
  Status: "RUNNING" | "COMPLETED" | "CANCELLING" | "CANCELLED" | "FAILED";
  SourceArn: string;
  DestinationArn?: string;
  MaxNumberOfMessagesPerSecond?: number;
  ApproximateNumberOfMessagesMoved: number;
  ApproximateNumberOfMessagesToMove?: number;
  FailureReason?: string;
  StartedTimestamp: number;
}

/** Each action's parameters and result: `SqsActions["SendMessage"]["input"]`. */
export interface SqsActions {
  AddPermission: { input: AddPermissionInput; output: Empty };
  CancelMessageMoveTask: { input: CancelMessageMoveTaskInput; output: { ApproximateNumberOfMessagesMoved: number } };
  ChangeMessageVisibility: { input: ChangeMessageVisibilityInput; output: Empty };
  ChangeMessageVisibilityBatch: { input: ChangeMessageVisibilityBatchInput; output: BatchOutput<{ Id: string }> };
  CreateQueue: { input: CreateQueueInput; output: { QueueUrl: string } };
  DeleteMessage: { input: DeleteMessageInput; output: Empty };
  DeleteMessageBatch: { input: DeleteMessageBatchInput; output: BatchOutput<{ Id: string }> };
  DeleteQueue: { input: QueueRef; output: Empty };
  GetQueueAttributes: { input: GetQueueAttributesInput; output: { Attributes?: QueueAttributes } };
  GetQueueUrl: { input: GetQueueUrlInput; output: { QueueUrl: string } };
  ListDeadLetterSourceQueues: { input: ListDeadLetterSourceQueuesInput; output: { queueUrls: string[]; NextToken?: string } };
  ListMessageMoveTasks: { input: ListMessageMoveTasksInput; output: { Results?: MessageMoveTask[] } };
  ListQueueTags: { input: QueueRef; output: { Tags?: Record<string, string> } };
  ListQueues: { input: ListQueuesInput; output: { QueueUrls?: string[]; NextToken?: string } };
  PurgeQueue: { input: QueueRef; output: Empty };
  ReceiveMessage: { input: ReceiveMessageInput; output: { Messages?: ReceivedMessage[] } };
  RemovePermission: { input: RemovePermissionInput; output: Empty };
  SendMessage: { input: SendMessageInput; output: MessageSent };
  SendMessageBatch: { input: SendMessageBatchInput; output: BatchOutput<MessageSent & { Id: string }> };
  SetQueueAttributes: { input: SetQueueAttributesInput; output: Empty };
  StartMessageMoveTask: { input: StartMessageMoveTaskInput; output: { TaskHandle: string } };
  TagQueue: { input: TagQueueInput; output: Empty };
  UntagQueue: { input: UntagQueueInput; output: Empty };
}

export type SqsAction = keyof SqsActions;
/** @deprecated Untyped parameters; use SqsInput<"SendMessage"> etc. */
export type SqsParams = Record<string, unknown>;
/** @deprecated Untyped results; use SqsOutput<"SendMessage"> etc. */
export type SqsResult = Record<string, any>;
export type SqsInput<A extends SqsAction> = SqsActions[A]["input"];
export type SqsOutput<A extends SqsAction> = SqsActions[A]["output"];

export interface ReceivedMessage {
  MessageId: string;
  ReceiptHandle: string;
  MD5OfBody: string;
  Body: string;
  Attributes?: Record<string, string>;
  MD5OfMessageAttributes?: string;
  MessageAttributes?: Record<string, { DataType: string; StringValue?: string; BinaryValue?: string }>;
}

/**
 * A message in `engine.peek()`: one still in the queue (`delayed`, `stored` = visible,
 * `in-flight`), or one that recently left it (with `endedAt`).
 */
export type PeekedMessage = {
  messageId: string;
  body: string;
  receiveCount: number;
  /** FIFO queues, and fair (standard) queues' tenants. */
  groupId?: string;
  /** FIFO queues. */
  sequenceNumber?: string;
} & (
  | {
      state: "delayed" | "stored" | "in-flight";
      sentTimestamp: number;
      /** `delayed`: when the delay ends (epoch ms). */
      delayedUntil?: number;
      /** `in-flight`: when the visibility timeout ends (epoch ms), and the latest receive's handle. */
      visibleAt?: number;
      receiptHandle?: string;
      deduplicationId?: string;
      deadLetterSourceArn?: string;
      /** A copy made by realism's duplicate delivery (same MessageId as the original). */
      duplicateCopy?: true;
    }
  | { state: "deleted" | "expired" | "purged" | "dead-lettered" | "moved"; endedAt: number }
);

/** What `engine.peek(queueUrl)` shows: the queue, every message and (FIFO) its groups. */
export interface QueuePeek {
  /** The engine's clock when peeked (epoch ms). */
  now: number;
  queue: { name: string; url: string; arn: string; fifo: boolean; attributes: Record<string, string> };
  /** Messages that recently left the queue first, then those in it in queue order. */
  messages: PeekedMessage[];
  /** FIFO queues: each group in the order of its first message; locked while one is in flight. */
  groups?: { groupId: string; locked: boolean; messageIds: string[] }[];
}

export class Engine {
  constructor(options?: EngineOptions);
  readonly clock: Clock;
  readonly closed: boolean;
  /** Any SQS action, synchronously. Throws an {@link SqsError}. */
  dispatch<A extends SqsAction>(action: A, params: SqsInput<A>): SqsOutput<A>;
  /** ReceiveMessage with long polling on the engine's clock; aborts with `signal`. */
  receiveMessage(params: ReceiveMessageInput, options?: { signal?: AbortSignal }): Promise<SqsOutput<"ReceiveMessage">>;
  /** Every message of a queue and its state, read-only. */
  peek(queueUrl: string): QueuePeek;
  /**
   * Every queue's numbers, queues in name order: messages by state (the counts GetQueueAttributes
   * answers), the age of the oldest, and counters since the engine started (messages sent,
   * received, deleted, moved to the dead-letter queue; calls throttled). `wasq serve` and the
   * edge Worker expose them at `GET /metrics` in the Prometheus text format.
   */
  metrics(): {
    queues: Array<{
      queue: string;
      region: string;
      fifo: boolean;
      visible: number;
      inflight: number;
      delayed: number;
      /** 0 when the queue is empty. */
      oldestMessageAgeSeconds: number;
      sent: number;
      received: number;
      deleted: number;
      movedToDeadLetterQueue: number;
      throttled: number;
    }>;
  };
  /**
   * Resolves once a receive has reached this engine (on `queue`, a URL or name, if given): a long
   * poll waiting (at once when one already is), or a receive answered without waiting (a message
   * already visible, a refusal); rejects with EngineClosedError on close(). A test on a ManualClock
   * awaits it between an SDK `send(ReceiveMessageCommand)` and `clock.advance()`: the request
   * reaches the engine some ticks after send() returns.
   */
  whenPolling(queue?: string): Promise<void>;
  /**
   * Realism for the whole engine (`queue` undefined) or one queue (URL or name), replacing the
   * engine's setting for that queue; null turns it off / drops the queue's override. Latency is
   * set for the whole engine only.
   */
  setRealism(queue: string | undefined, realism: RealismSetting, options?: { region?: string }): this;
  /** The realism settings in force for a queue. */
  realismFor(queue: string, options?: { region?: string }): RealismInForce;
  /** Apply everything due now (hosts with `timers: false`). */
  tick(): void;
  /** Epoch ms of the next time-driven change, if any. */
  nextDeadline(): number | undefined;
  /**
   * State transitions. The engine collects them only while at least one "event" listener is
   * subscribed (calls nobody watches skip that work): a listener sees the calls made after it
   * subscribed, never earlier ones.
   */
  on(name: "event", listener: (event: EngineEvent) => void): this;
  /** Failures of timer-driven work, and errors thrown by "event" listeners (never the caller's). */
  on(name: "error", listener: (error: unknown) => void): this;
  off(name: "event" | "error", listener: (...args: any[]) => void): this;
  /** Stop timers, reject pending long polls (EngineClosedError), release the wasm memory. */
  close(): void;

  addPermission(params: SqsInput<"AddPermission">): SqsOutput<"AddPermission">;
  cancelMessageMoveTask(params: SqsInput<"CancelMessageMoveTask">): SqsOutput<"CancelMessageMoveTask">;
  changeMessageVisibility(params: SqsInput<"ChangeMessageVisibility">): SqsOutput<"ChangeMessageVisibility">;
  changeMessageVisibilityBatch(params: SqsInput<"ChangeMessageVisibilityBatch">): SqsOutput<"ChangeMessageVisibilityBatch">;
  createQueue(params: SqsInput<"CreateQueue">): SqsOutput<"CreateQueue">;
  deleteMessage(params: SqsInput<"DeleteMessage">): SqsOutput<"DeleteMessage">;
  deleteMessageBatch(params: SqsInput<"DeleteMessageBatch">): SqsOutput<"DeleteMessageBatch">;
  deleteQueue(params: SqsInput<"DeleteQueue">): SqsOutput<"DeleteQueue">;
  getQueueAttributes(params: SqsInput<"GetQueueAttributes">): SqsOutput<"GetQueueAttributes">;
  getQueueUrl(params: SqsInput<"GetQueueUrl">): SqsOutput<"GetQueueUrl">;
  listDeadLetterSourceQueues(params: SqsInput<"ListDeadLetterSourceQueues">): SqsOutput<"ListDeadLetterSourceQueues">;
  listMessageMoveTasks(params: SqsInput<"ListMessageMoveTasks">): SqsOutput<"ListMessageMoveTasks">;
  listQueueTags(params: SqsInput<"ListQueueTags">): SqsOutput<"ListQueueTags">;
  listQueues(params?: SqsInput<"ListQueues">): SqsOutput<"ListQueues">;
  purgeQueue(params: SqsInput<"PurgeQueue">): SqsOutput<"PurgeQueue">;
  removePermission(params: SqsInput<"RemovePermission">): SqsOutput<"RemovePermission">;
  sendMessage(params: SqsInput<"SendMessage">): SqsOutput<"SendMessage">;
  sendMessageBatch(params: SqsInput<"SendMessageBatch">): SqsOutput<"SendMessageBatch">;
  setQueueAttributes(params: SqsInput<"SetQueueAttributes">): SqsOutput<"SetQueueAttributes">;
  startMessageMoveTask(params: SqsInput<"StartMessageMoveTask">): SqsOutput<"StartMessageMoveTask">;
  tagQueue(params: SqsInput<"TagQueue">): SqsOutput<"TagQueue">;
  untagQueue(params: SqsInput<"UntagQueue">): SqsOutput<"UntagQueue">;
}

export interface HandlerOptions {
  /** Verify every request's SigV4 signature against these credentials. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Larger request bodies are refused with RequestEntityTooLarge (default 8 MiB). */
  maxBodyBytes?: number;
}

/** An AWS SDK v3 `requestHandler` answering in-process. */
export interface RequestHandler {
  metadata: { handlerProtocol: string };
  handle(
    request: { method?: string; protocol?: string; path?: string; query?: Record<string, string | string[] | null>; headers?: Record<string, string>; body?: string | Uint8Array },
    // The SDK's HttpHandlerOptions: its abortSignal may also be the deprecated
    // @aws-sdk/abort-controller kind (aborted/onabort only), which strict type-checking of
    // `new SQSClient({ requestHandler })` requires this parameter to accept.
    options?: { abortSignal?: AbortSignal | { readonly aborted: boolean; onabort: unknown } },
  ): Promise<{ response: { statusCode: number; headers: Record<string, string>; body: Uint8Array } }>;
  updateHttpClientConfig(key: unknown, value: unknown): void;
  httpHandlerConfigs(): {};
  destroy(): void;
}

export function createRequestHandler(engine: Engine, options?: HandlerOptions): RequestHandler;
export function createFetchHandler(engine: Engine, options?: HandlerOptions): (request: Request) => Promise<Response>;

export interface ConsumerOptions {
  engine: Engine | { receiveMessage(params: ReceiveMessageInput, options?: { signal?: AbortSignal }): Promise<{ Messages?: ReceivedMessage[] }>; [method: string]: any };
  queueUrl: string;
  /** Its result is ignored (return what you like, e.g. the message, as for sqs-consumer); a throw or rejection is a failure. */
  handleMessage?: (message: ReceivedMessage) => unknown;
  /** Resolve to undefined (all succeeded) or the messages to delete (the rest are released). */
  handleMessageBatch?: (messages: ReceivedMessage[]) => Promise<void | ReceivedMessage[]> | void | ReceivedMessage[];
  batchSize?: number;
  waitTimeSeconds?: number;
  visibilityTimeout?: number;
  heartbeatInterval?: number;
  releaseOnFailure?: "immediate" | false | { backoff: (receiveCount: number) => number };
  concurrency?: number;
  attributeNames?: string[];
  messageAttributeNames?: string[];
  signal?: AbortSignal;
  clock?: Clock;
  errorBackoffMs?: number;
}

/** Polls a queue and runs handlers; deletes on success, releases on failure. */
export class Consumer {
  constructor(options: ConsumerOptions);
  readonly isRunning: boolean;
  start(): this;
  stop(options?: { wait?: boolean }): Promise<void>;
  on(name: "processed" | "error" | "released" | "stopped" | "empty" | "received", listener: (...args: any[]) => void): this;
  off(name: string, listener: (...args: any[]) => void): this;
}
