export interface Item {
  name: string;
  price: number;
}

export function total(items: Item[]): number {
  return items.reduce((sum, i) => sum + i.price, 0);
}

const label: string = total([]);
total([{ name: "tea", price: "3" }]);
console.log(discount(label));
