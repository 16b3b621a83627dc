rustc --edition 2021 parse.rs
# root /home/dev/rust/single
