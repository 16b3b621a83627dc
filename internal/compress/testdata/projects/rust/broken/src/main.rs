fn total(items: &[u32]) -> u32 {
    let unused = 5;
    items.iter().sum()
}

fn main() {
    let count: i32 = "three";
    let items = vec![1, 2, 3];
    println!("{} {}", total(&items), missing_value);
    let _ = count;
}
