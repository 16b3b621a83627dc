cargo clippy --offline
# root /home/dev/rust/lint
