// Everything every entry point exports; entries add `init`, the wasm loading and FileStorage.

export { Engine } from "./engine.js";
export { SystemClock, ManualClock } from "./clock.js";
export { MemoryStorage } from "./storage/memory.js";
export { IndexedDbStorage } from "./storage/indexeddb.js";
export { LocalStorageStorage } from "./storage/localstorage.js";
export { DurableObjectStorage } from "./storage/durable-object.js";
export { createRequestHandler, createFetchHandler } from "./http.js";
export { Consumer } from "./consumer.js";
