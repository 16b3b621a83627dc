cargo test --offline
# root /home/dev/rust/calc
