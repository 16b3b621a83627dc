function price(items) {
  let sum = 0;
  const unused = 42;
  for (let i = 0; i < items.length; i++) {
    if (items[i].qty == 0) continue;
    sum += items[i].price * items[i].qty;
  }
  return sum + taxRate;
}

let shipping = 5;
module.exports = { price, shipping };
