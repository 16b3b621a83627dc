import { test } from "node:test";
import assert from "node:assert/strict";
import { Queue } from "./queue.mjs";

test("enqueues in order", () => {
  const q = new Queue();
  q.put(1);
  q.put(2);
  assert.equal(q.take(), 1);
});

test("reports its length", () => {
  const q = new Queue();
  q.put("x");
  assert.equal(q.length, 2);
});

test("rejects undefined", () => {
  const q = new Queue();
  assert.throws(() => q.put(undefined), /undefined/);
});
