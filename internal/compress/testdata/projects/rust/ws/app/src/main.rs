fn main() {
    let xs = vec![1.0, 2.0, 3.0];
    let unused = xs.len();
    println!("{}", util::mean(&xs));
}
