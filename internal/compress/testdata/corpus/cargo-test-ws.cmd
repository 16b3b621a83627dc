cargo test --offline -p util
# root /home/dev/rust/ws
