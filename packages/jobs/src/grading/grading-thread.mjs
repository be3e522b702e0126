// Entry of a grading worker thread. Plain JavaScript because worker threads do
// not inherit the parent's TypeScript loader: register it here, then load the
// TypeScript worker body.
import { register } from "tsx/esm/api";

register();
await import("./grading-thread-body.ts");
