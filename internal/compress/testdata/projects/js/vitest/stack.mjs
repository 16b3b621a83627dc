export class Stack {
  #items = [];
  push(x) { this.#items.push(x); }
  pop() { return this.#items.shift(); }
  peek() { return this.#items.at(-1).toUpperCase(); }
  size() { return this.#items.length; }
}
