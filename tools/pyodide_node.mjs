// Run Python code under the vendored Pyodide (the browser's runtime) in Node.js.
//
//   node tools/pyodide_node.mjs < script.py      prints whatever the script prints
//
// The app's engine (app/swarmlab) is mounted read-only at /app through NODEFS, and
// numpy comes from the vendored wheel, so this is the same Python + numpy the
// page runs.  Tests use it as the "CPython against Pyodide" oracle without a browser.
import { loadPyodide } from "../assets/vendor/pyodide/pyodide.mjs";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const code = readFileSync(0, "utf8");

const py = await loadPyodide({
  indexURL: path.join(root, "assets/vendor/pyodide") + "/",
  packages: ["numpy"],
  stdout: (s) => process.stdout.write(s + "\n"),
  stderr: (s) => process.stderr.write(s + "\n"),
});
py.FS.mkdir("/app");
// SWARMLAB_APP=<dir> mounts another copy of the engine (tools/bench --baseline: before/after)
py.FS.mount(py.FS.filesystems.NODEFS, { root: process.env.SWARMLAB_APP || path.join(root, "app") }, "/app");
py.runPython("import sys; sys.path.insert(0, '/app')");
try {
  await py.runPythonAsync(code);
} catch (err) {
  process.stderr.write(String(err.message || err) + "\n");
  process.exit(1);
}
