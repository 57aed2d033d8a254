// Browsers and workerd have no file system; the name still exists so one import line works on
// every runtime, and using it says why it cannot work here.

export class FileStorage {
  constructor() {
    throw new Error("FileStorage needs Node's file system; in this runtime use IndexedDbStorage, " +
      "LocalStorageStorage, DurableObjectStorage or MemoryStorage");
  }
}
