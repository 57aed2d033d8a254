// The adapters under test, from the built package (`make pkg` → pkg/), as users get them.
export {
  MemoryStorage,
  LocalStorageStorage,
  FileStorage,
  IndexedDbStorage,
  DurableObjectStorage,
} from "../../../pkg/entry/node.js";
