fn main() {
    let out_dir = std::env::var("OUT_DIR");
    println!("cargo:rerun-if-changed=build.rs");
}
