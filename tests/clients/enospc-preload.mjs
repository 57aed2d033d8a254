// Loaded into a `wasq serve` child with `node --import`: while the file named by
// WASQ_TEST_ENOSPC holds a count above zero, that many writes to files fail with ENOSPC, as they
// do on a full disk (Node's system error: code, errno, syscall), and the count goes down by one
// each time. Only writes to files opened by the process (fd > 2) are touched.

import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const flag = process.env.WASQ_TEST_ENOSPC;
const writeSync = fs.writeSync;

fs.writeSync = function failingWriteSync(fd, ...rest) {
  if (fd > 2 && flag) {
    let left = 0;
    try {
      left = Number(fs.readFileSync(flag, "utf8")) || 0;
    } catch {
      left = 0;
    }
    if (left > 0) {
      const out = fs.openSync(flag, "w");
      writeSync(out, String(left - 1));
      fs.closeSync(out);
      const err = new Error("ENOSPC: no space left on device, write");
      Object.assign(err, { errno: -28, code: "ENOSPC", syscall: "write" });
      throw err;
    }
  }
  return writeSync.call(this, fd, ...rest);
};
// The package's ESM bundles read `node:fs`'s named exports, which follow the object only when told.
syncBuiltinESMExports();
