export class Queue {
  #items = [];
  put(x) { this.#items.push(x); }
  take() { return this.#items.shift(); }
  get length() { return this.#items.length; }
}
