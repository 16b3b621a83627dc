rustc --edition 2021 build.rs
# root /home/dev/rust/warn
