const { add, split } = require("./cart");

describe("cart", () => {
  test("adds prices", () => {
    expect(add(1, 2)).toBe(3);
  });

  test.each(Array.from({ length: 300 }, (_, i) => i))("splits %i evenly", (n) => {
    expect(split(n * 2, 2)).toBe(n);
  });

  test("splits the bill", () => {
    expect(split(10, 0)).toBe(5);
  });
});
