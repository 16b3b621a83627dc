cargo build --offline
# root /home/dev/rust/ws
