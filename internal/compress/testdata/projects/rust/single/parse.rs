fn parse(s: &str) -> Result<i32, String> {
    s.parse::<i32>().map_err(|e| e.to_string())
}

fn main() {
    let n: u8 = parse("42");
    println!("{}", n);
}
