pub fn is_empty_len(v: &Vec<i32>) -> bool {
    return v.len() == 0;
}

pub fn double(x: i32) -> i32 {
    let y = x * 2;
    return y;
}

pub fn first(v: &Vec<String>) -> Option<&String> {
    if v.len() > 0 {
        Some(&v[0])
    } else {
        None
    }
}
