import { describe, expect, test } from "vitest";
import { Stack } from "./stack.mjs";

describe("Stack", () => {
  test("pushes and pops", () => {
    const s = new Stack();
    s.push(1);
    s.push(2);
    expect(s.pop()).toBe(2);
  });

  test("peeks at the top", () => {
    const s = new Stack();
    s.push("a");
    expect(s.peek()).toEqual("a");
  });

  for (let i = 0; i < 20; i++) {
    test(`size after ${i} pushes`, () => {
      const s = new Stack();
      for (let j = 0; j < i; j++) s.push(j);
      expect(s.size()).toBe(i);
    });
  }
});
