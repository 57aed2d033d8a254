// The adapters under test, from the built package (`make pkg` → pkg/), as users get them.
export {
  MemoryStorage,
  LocalStorageStorage,
  FileStorage,
  IndexedDbStorage,
  DurableObjectStorage,
} from "../../../pkg/entry/node.js";
// Not a package export: the format version the file adapter writes, for the refusal test.
export { FILE_FORMAT_VERSION } from "../../../pkg/src/storage/file.js";
