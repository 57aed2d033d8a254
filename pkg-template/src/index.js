// Everything every entry point exports; entries add `init`, the wasm loading and FileStorage.

import { Engine } from "./engine.js";
import { SystemClock, ManualClock } from "./clock.js";
import { MemoryStorage } from "./storage/memory.js";
import { IndexedDbStorage } from "./storage/indexeddb.js";
import { LocalStorageStorage } from "./storage/localstorage.js";
import { DurableObjectStorage } from "./storage/durable-object.js";
import { createRequestHandler, createFetchHandler } from "./http.js";
import { Consumer } from "./consumer.js";
import { keepNames } from "./names.js";

keepNames({
  Engine,
  SystemClock,
  ManualClock,
  MemoryStorage,
  IndexedDbStorage,
  LocalStorageStorage,
  DurableObjectStorage,
  createRequestHandler,
  createFetchHandler,
  Consumer,
});

export {
  Engine,
  SystemClock,
  ManualClock,
  MemoryStorage,
  IndexedDbStorage,
  LocalStorageStorage,
  DurableObjectStorage,
  createRequestHandler,
  createFetchHandler,
  Consumer,
};
