function add(a, b) {
  return a - b;
}

function split(total, people) {
  if (people === 0) throw new Error("cannot split between zero people");
  return total / people;
}

module.exports = { add, split };
