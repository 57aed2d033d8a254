// One place that says where the adapters under test come from.
export { MemoryStorage } from "../../../pkg-template/src/storage/memory.js";
export { LocalStorageStorage } from "../../../pkg-template/src/storage/localstorage.js";
export { FileStorage, FILE_FORMAT_VERSION } from "../../../pkg-template/src/storage/file.js";
export { IndexedDbStorage } from "../../../pkg-template/src/storage/indexeddb.js";
export { DurableObjectStorage } from "../../../pkg-template/src/storage/durable-object.js";
