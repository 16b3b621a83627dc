import { describe, expect, test } from "vitest";

class Queue {
  constructor() { this.items = []; }
  push(x) { this.items.push(x); }
  shift() { return this.items.pop(); } // bug: LIFO
  get size() { return this.items.length; }
}

describe("Queue", () => {
  describe("order", () => {
    test("first in, first out", () => {
      const q = new Queue();
      q.push("a"); q.push("b");
      console.log("queue:", q.items);
      console.log("queue:", q.items);
      expect(q.shift()).toBe("a");
    });
    test("bar", () => { expect(new Queue().size).toBe(0); });
  });
  describe.each([1, 2, 3, 4, 5, 6])("with %i items", (n) => {
    test("size", () => {
      const q = new Queue();
      for (let i = 0; i < n; i++) q.push(i);
      expect(q.size).toBe(n);
    });
    test("drains", () => {
      const q = new Queue();
      for (let i = 0; i < n; i++) q.push(i);
      expect(q.shift()).toBe(0);
    });
  });
});
